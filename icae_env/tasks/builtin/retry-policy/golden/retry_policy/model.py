"""Policy model and validation.

Validation order (first failure wins): policy, strategy, base_ms, step_ms (linear only),
multiplier (exponential only), max_delay_ms, max_attempts, jitter, retry_on, deadline_ms,
then outcomes.  Optional fields that are absent or null take their default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .errors import InputError, PolicyError

STRATEGIES = ("fixed", "linear", "exponential")
JITTER_MODES = ("none", "full", "equal")
DEFAULT_RETRY_STATUS: tuple[int | str, ...] = (408, 429, 500, 502, 503, 504)
DEFAULT_RETRY_ERRORS: tuple[str, ...] = ("timeout", "connection_reset")
DEFAULT_MAX_ATTEMPTS = 3
DEFAULT_MULTIPLIER = Fraction(2)
MAX_ATTEMPTS_LIMIT = 100
SEED_LIMIT = 2**31
_STATUS_CLASS = re.compile(r"[1-5]xx")


@dataclass(frozen=True)
class Jitter:
    mode: str = "none"
    seed: int = 0


@dataclass(frozen=True)
class RetryOn:
    status: tuple[int | str, ...] = DEFAULT_RETRY_STATUS
    errors: tuple[str, ...] = DEFAULT_RETRY_ERRORS


@dataclass(frozen=True)
class Policy:
    strategy: str
    base_ms: int
    step_ms: int = 0
    multiplier: Fraction = DEFAULT_MULTIPLIER
    max_delay_ms: int | None = None
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    jitter: Jitter = Jitter()
    retry_on: RetryOn = RetryOn()
    deadline_ms: int | None = None


@dataclass(frozen=True)
class Outcome:
    """One attempt outcome: an HTTP status (int) or an error class name (str)."""

    value: int | str

    @property
    def label(self) -> str:
        return str(self.value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _non_negative_int(value: object) -> bool:
    return _is_int(value) and value >= 0  # type: ignore[operator]


def _exact_number(value: object) -> Fraction | None:
    """Exact value of a JSON number (int, Decimal or float), or None if not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Decimal):
        return Fraction(value) if value.is_finite() else None
    if isinstance(value, float):
        return Fraction(Decimal(repr(value)))
    return None


def _parse_multiplier(value: object) -> Fraction:
    if value is None:
        return DEFAULT_MULTIPLIER
    exact = _exact_number(value)
    if exact is None or exact < 1 or exact > 10 or (exact * 100).denominator != 1:
        raise PolicyError("multiplier")
    return exact


def _parse_jitter(value: object) -> Jitter:
    if value is None:
        return Jitter()
    if not isinstance(value, dict) or value.get("mode") not in JITTER_MODES:
        raise PolicyError("jitter")
    mode = value["mode"]
    if mode == "none":
        return Jitter()
    seed = value.get("seed")
    if not _is_int(seed) or not 0 <= seed < SEED_LIMIT:
        raise PolicyError("jitter")
    return Jitter(mode, seed)


def _valid_status_entry(entry: object) -> bool:
    if _is_int(entry):
        return 100 <= entry <= 599  # type: ignore[operator]
    return isinstance(entry, str) and _STATUS_CLASS.fullmatch(entry) is not None


def _parse_retry_on(value: object) -> RetryOn:
    if value is None:
        return RetryOn()
    if not isinstance(value, dict):
        raise PolicyError("retry_on")
    status = value.get("status")
    errors = value.get("errors")
    if status is None:
        status = DEFAULT_RETRY_STATUS
    elif not isinstance(status, list) or not all(_valid_status_entry(s) for s in status):
        raise PolicyError("retry_on")
    if errors is None:
        errors = DEFAULT_RETRY_ERRORS
    elif not isinstance(errors, list) or not all(isinstance(e, str) and e for e in errors):
        raise PolicyError("retry_on")
    return RetryOn(tuple(status), tuple(errors))


def parse_policy(raw: object) -> Policy:
    """Validate a raw policy mapping and build a :class:`Policy`."""
    if not isinstance(raw, dict):
        raise InputError("policy")
    strategy = raw.get("strategy")
    if strategy not in STRATEGIES:
        raise PolicyError("strategy")
    base_ms = raw.get("base_ms")
    if not _non_negative_int(base_ms):
        raise PolicyError("base_ms")

    step_ms = 0
    if strategy == "linear":
        step_ms = raw.get("step_ms")
        if step_ms is None:
            step_ms = base_ms
        elif not _non_negative_int(step_ms):
            raise PolicyError("step_ms")

    multiplier = DEFAULT_MULTIPLIER
    if strategy == "exponential":
        multiplier = _parse_multiplier(raw.get("multiplier"))

    max_delay_ms = raw.get("max_delay_ms")
    if max_delay_ms is not None and not _non_negative_int(max_delay_ms):
        raise PolicyError("max_delay_ms")

    max_attempts = raw.get("max_attempts")
    if max_attempts is None:
        max_attempts = DEFAULT_MAX_ATTEMPTS
    elif not _is_int(max_attempts) or not 1 <= max_attempts <= MAX_ATTEMPTS_LIMIT:
        raise PolicyError("max_attempts")

    jitter = _parse_jitter(raw.get("jitter"))
    retry_on = _parse_retry_on(raw.get("retry_on"))

    deadline_ms = raw.get("deadline_ms")
    if deadline_ms is not None and not _non_negative_int(deadline_ms):
        raise PolicyError("deadline_ms")

    return Policy(
        strategy=strategy,
        base_ms=base_ms,
        step_ms=step_ms,
        multiplier=multiplier,
        max_delay_ms=max_delay_ms,
        max_attempts=max_attempts,
        jitter=jitter,
        retry_on=retry_on,
        deadline_ms=deadline_ms,
    )


def parse_outcomes(raw: object) -> list[Outcome]:
    """Validate the optional outcome list (absent/null means no listed outcomes)."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError("outcomes")
    outcomes = []
    for item in raw:
        if _is_int(item) and 100 <= item <= 599:
            outcomes.append(Outcome(item))
        elif isinstance(item, str) and item:
            outcomes.append(Outcome(item))
        else:
            raise InputError("outcomes")
    return outcomes
