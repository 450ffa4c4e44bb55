"""Base delay for the n-th retry: strategy formula, rounding, cap."""

from __future__ import annotations

from fractions import Fraction

from .model import Policy


def round_half_up(value: Fraction) -> int:
    """Round a non-negative exact value to the nearest integer, ties upward."""
    return (2 * value.numerator + value.denominator) // (2 * value.denominator)


def raw_delay(policy: Policy, retry: int) -> Fraction:
    """Uncapped exact delay (ms) before retry number ``retry`` (1-based)."""
    if policy.strategy == "fixed":
        return Fraction(policy.base_ms)
    if policy.strategy == "linear":
        return Fraction(policy.base_ms + (retry - 1) * policy.step_ms)
    return policy.base_ms * policy.multiplier ** (retry - 1)


def capped_delay(policy: Policy, retry: int) -> int:
    """Rounded then capped delay in whole milliseconds (before jitter)."""
    delay = round_half_up(raw_delay(policy, retry))
    if policy.max_delay_ms is not None:
        delay = min(delay, policy.max_delay_ms)
    return delay
