"""Retry / back-off policy calculator (core library, no I/O)."""

from .engine import AttemptRecord, Report, simulate
from .errors import InputError, PolicyError
from .formatting import format_duration, render
from .model import Policy, parse_outcomes, parse_policy

__all__ = [
    "AttemptRecord",
    "Report",
    "InputError",
    "Policy",
    "PolicyError",
    "format_duration",
    "parse_outcomes",
    "parse_policy",
    "plan",
    "render",
    "simulate",
]


def plan(policy: dict, outcomes: list | None = None) -> Report:
    """Validate ``policy`` / ``outcomes`` and run the policy over them.

    Raises:
        InputError: (or its subclass PolicyError) naming the first invalid field.
    """
    return simulate(parse_policy(policy), parse_outcomes(outcomes))
