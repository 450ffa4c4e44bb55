"""Classify an attempt outcome as success, retryable failure or final failure."""

from __future__ import annotations

from enum import Enum

from .model import Outcome, RetryOn


class Verdict(Enum):
    SUCCESS = "success"
    RETRYABLE = "retryable"
    FATAL = "fatal"


def classify(outcome: Outcome | None, retry_on: RetryOn) -> Verdict:
    """``None`` is the implicit generic failure of an unlisted attempt (always retryable)."""
    if outcome is None:
        return Verdict.RETRYABLE
    value = outcome.value
    if isinstance(value, int):
        if value < 400:
            return Verdict.SUCCESS
        if value in retry_on.status or f"{value // 100}xx" in retry_on.status:
            return Verdict.RETRYABLE
        return Verdict.FATAL
    return Verdict.RETRYABLE if value in retry_on.errors else Verdict.FATAL
