"""The wait before a retry: strategy, the house rounding, the cap
and the seeded jitter."""

from fractions import Fraction

from .rules import CAP_FIRST, FIRST_GROWTH, round_ms

LCG_MULTIPLIER, LCG_INCREMENT, LCG_MODULUS = 1103515245, 12345, 2**31


class Jitter:
    """A 31-bit linear congruential generator; one draw per computed retry delay."""

    def __init__(self, mode, seed):
        self.mode, self.state = mode, seed

    def spread(self, delay):
        if self.mode == "none":
            return delay
        self.state = (LCG_MULTIPLIER * self.state + LCG_INCREMENT) % LCG_MODULUS
        if self.mode == "full":
            return self.state % (delay + 1)
        half = delay // 2
        return delay - half + self.state % (half + 1)


def raw_delay(policy, retry):
    """The exact wait (ms) before retry number ``retry`` (1-based), before rounding."""
    if policy.strategy == "fixed":
        return Fraction(policy.base_ms)
    if policy.strategy == "linear":
        return Fraction(policy.base_ms + (retry - 1) * policy.step_ms)
    return policy.base_ms * policy.multiplier ** (retry - 1 + FIRST_GROWTH)


def capped(policy, delay):
    return delay if policy.max_delay_ms is None else min(delay, policy.max_delay_ms)


def next_delay(policy, retry, jitter):
    """The wait before retry ``retry``: rounded, then capped and jittered in the house order."""
    delay = round_ms(raw_delay(policy, retry))
    if CAP_FIRST:
        return jitter.spread(capped(policy, delay))
    return capped(policy, jitter.spread(delay))
