"""The Python golden of ``retry-schedule``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "retryplan/__init__.py": '''"""Retry schedules: the attempt-by-attempt timeline of a retry policy
over some outcomes."""

from .app import handle

__all__ = ["handle"]
''',
    "retryplan/policy.py": '''"""The request and its validation: fields checked in a fixed order
(the house says how many errors to report)."""

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .rules import ATTEMPTS_DEFAULT, DEFAULT_STATUS, REPORT_ALL

STRATEGIES = ("fixed", "linear", "exponential")
JITTER_MODES = ("none", "full", "equal")
DEFAULT_ERRORS = ("timeout", "connection_reset")
SEED_LIMIT = 2**31
STATUS_CLASS = re.compile(r"[1-5]xx")


class InvalidInput(Exception):
    """The request has invalid fields (their names, in the checking order)."""

    def __init__(self, fields):
        super().__init__(", ".join(fields))
        self.fields = fields


@dataclass(frozen=True)
class Policy:
    strategy: str
    base_ms: int
    step_ms: int
    multiplier: Fraction
    max_delay_ms: object
    attempts: int
    jitter: str
    seed: int
    status: tuple
    errors: tuple
    deadline_ms: object


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def is_count(value):
    return is_int(value) and value >= 0


def exact(value):
    """The exact value of a JSON number, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float):
        return Fraction(Decimal(repr(value))) if math.isfinite(value) else None
    return Fraction(value)


class Fields:
    """Collects the invalid fields; under the house rule the first one may end the reading."""

    def __init__(self):
        self.bad = []

    def fail(self, field):
        self.bad.append(field)
        if not REPORT_ALL:
            raise InvalidInput(self.bad)

    def optional(self, raw, field, valid, default=None):
        value = raw.get(field)
        if value is None:
            return default
        if not valid(value):
            self.fail(field)
        return value


def _multiplier(value):
    number = exact(value)
    return number is not None and 1 <= number <= 10 and (number * 100).denominator == 1


def _jitter(fields, value):
    if value is None:
        return "none", 0
    if not isinstance(value, dict) or value.get("mode") not in JITTER_MODES:
        fields.fail("jitter")
        return "none", 0
    seed = value.get("seed")
    if value["mode"] != "none" and not (is_int(seed) and 0 <= seed < SEED_LIMIT):
        fields.fail("jitter")
        return "none", 0
    return value["mode"], seed if value["mode"] != "none" else 0


def _status_entry(entry):
    if is_int(entry):
        return 100 <= entry <= 599
    return isinstance(entry, str) and STATUS_CLASS.fullmatch(entry) is not None


def _retry_on(fields, value):
    if value is None:
        return DEFAULT_STATUS, DEFAULT_ERRORS
    if not isinstance(value, dict):
        fields.fail("retry_on")
        return DEFAULT_STATUS, DEFAULT_ERRORS
    status, errors = value.get("status"), value.get("errors")
    status_ok = status is None or (isinstance(status, list) and all(_status_entry(s) for s in status))
    errors_ok = errors is None or (isinstance(errors, list) and all(isinstance(e, str) and e for e in errors))
    if not (status_ok and errors_ok):
        fields.fail("retry_on")
        return DEFAULT_STATUS, DEFAULT_ERRORS
    return (DEFAULT_STATUS if status is None else tuple(status)), (DEFAULT_ERRORS if errors is None else tuple(errors))


def _outcome(entry):
    return (is_int(entry) and 100 <= entry <= 599) or (isinstance(entry, str) and entry != "")


def read_request(data):
    """The name, the policy and the outcomes of a request (raises InvalidInput)."""
    if not isinstance(data, dict):
        raise InvalidInput(["request"])
    fields = Fields()
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        fields.fail("name")
    raw = data.get("policy")
    if not isinstance(raw, dict):
        fields.fail("policy")
        raise InvalidInput(fields.bad)
    strategy = raw.get("strategy")
    if strategy not in STRATEGIES:
        fields.fail("strategy")
    base = raw.get("base_ms")
    if not is_count(base):
        fields.fail("base_ms")
        base = 0
    step = fields.optional(raw, "step_ms", is_count, base) if strategy == "linear" else 0
    multiplier = fields.optional(raw, "multiplier", _multiplier, 2) if strategy == "exponential" else 2
    cap = fields.optional(raw, "max_delay_ms", is_count)
    attempts = fields.optional(raw, "attempts", lambda v: is_int(v) and 1 <= v <= 100, ATTEMPTS_DEFAULT)
    jitter, seed = _jitter(fields, raw.get("jitter"))
    status, errors = _retry_on(fields, raw.get("retry_on"))
    deadline = fields.optional(raw, "deadline_ms", is_count)
    outcomes = data.get("outcomes")
    if outcomes is not None and not (isinstance(outcomes, list) and all(_outcome(o) for o in outcomes)):
        fields.fail("outcomes")
    if fields.bad:
        raise InvalidInput(fields.bad)
    policy = Policy(strategy, base, step, exact(multiplier), cap, attempts, jitter, seed, status, errors, deadline)
    return name, policy, list(outcomes or [])
''',
    "retryplan/delays.py": '''"""The wait before a retry: strategy, the house rounding, the cap
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
''',
    "retryplan/engine.py": '''"""The attempt loop: classify each outcome, wait or give up, within
the limit and the budget."""

from .delays import Jitter, next_delay
from .rules import DEADLINE_INCLUSIVE, SHORTEN_LAST_WAIT, attempt_limit, error_matches, unlisted


def classify(outcome, policy):
    """success, retry or final (``None`` is the generic failure of an unlisted attempt)."""
    if outcome is None:
        return "retry"
    if isinstance(outcome, int):
        if outcome < 400:
            return "success"
        return "retry" if outcome in policy.status or f"{outcome // 100}xx" in policy.status else "final"
    return "retry" if error_matches(outcome, policy.errors) else "final"


def fit(policy, elapsed, delay):
    """The wait the deadline lets the client take for ``delay`` (None: it gives up)."""
    if policy.deadline_ms is None:
        return delay
    allowed = policy.deadline_ms - elapsed - (0 if DEADLINE_INCLUSIVE else 1)
    if delay <= allowed:
        return delay
    return allowed if SHORTEN_LAST_WAIT and allowed > 0 else None


def run(policy, outcomes):
    """Attempt records ``(number, label, action, delay, elapsed)``, the reason and the total wait."""
    records, elapsed, jitter = [], 0, Jitter(policy.jitter, policy.seed)
    limit = attempt_limit(policy.attempts)
    for number in range(1, limit + 1):
        outcome = outcomes[number - 1] if number <= len(outcomes) else unlisted(outcomes)
        label = "fail" if outcome is None else str(outcome)
        verdict = classify(outcome, policy)
        if verdict == "success":
            return records + [(number, label, "success", 0, elapsed)], "success", elapsed
        if verdict == "final":
            return records + [(number, label, "give up", 0, elapsed)], "not_retryable", elapsed
        if number == limit:
            return records + [(number, label, "give up", 0, elapsed)], "max_attempts", elapsed
        delay = fit(policy, elapsed, next_delay(policy, number, jitter))
        if delay is None:
            return records + [(number, label, "give up", 0, elapsed)], "deadline", elapsed
        elapsed += delay
        records.append((number, label, "retry", delay, elapsed))
    return records, "max_attempts", elapsed
''',
    "retryplan/app.py": '''"""One request in, one timeline out."""

from .engine import run
from .policy import InvalidInput, read_request
from .rules import duration


def line(record):
    number, label, action, delay, elapsed = record
    if action == "retry":
        action = f"retry in {duration(delay)} (elapsed {duration(elapsed)})"
    return f"attempt {number}: {label} -> {action}"


def handle(data):
    """The whole output of one request: {name, policy, outcomes?}."""
    try:
        name, policy, outcomes = read_request(data)
    except InvalidInput as exc:
        return f"error: invalid {exc}\\n"
    records, reason, waited = run(policy, outcomes)
    lines = [f"== {name} ==", *(line(r) for r in records)]
    lines.append(f"result: {reason} attempts={len(records)} waited={duration(waited)}")
    return "\\n".join(lines) + "\\n"
''',
}

_SECONDS = '    return f"{ms}ms" if ms < 1000 else '
BLOCKS = {
    "attempts": {
        "total": "def attempt_limit(attempts):\n    return attempts\n",
        "retries": "def attempt_limit(attempts):\n    return attempts + 1\n",
    },
    "attempts_default": {"three": "ATTEMPTS_DEFAULT = 3\n", "five": "ATTEMPTS_DEFAULT = 5\n"},
    "rounding": {
        "half_up": (
            "def round_ms(value):\n    return (2 * value.numerator + value.denominator) // (2 * value.denominator)\n"
        ),
        "half_even": "def round_ms(value):\n    return round(value)\n",
        "down": "def round_ms(value):\n    return value.numerator // value.denominator\n",
        "up": "def round_ms(value):\n    return -(-value.numerator // value.denominator)\n",
    },
    "first_delay": {"base": "FIRST_GROWTH = 0\n", "grown": "FIRST_GROWTH = 1\n"},
    "cap_order": {"before_jitter": "CAP_FIRST = True\n", "after_jitter": "CAP_FIRST = False\n"},
    "default_retryable": {
        "transient": "DEFAULT_STATUS = (408, 429, 500, 502, 503, 504)\n",
        "server": 'DEFAULT_STATUS = ("5xx",)\n',
        "server_throttle": 'DEFAULT_STATUS = (429, "5xx")\n',
    },
    "error_matching": {
        "exact": "def error_matches(name, errors):\n    return name in errors\n",
        "insensitive": "def error_matches(name, errors):\n    return name.lower() in [e.lower() for e in errors]\n",
    },
    "unlisted": {
        "fail": "def unlisted(outcomes):\n    return None\n",
        "repeat_last": "def unlisted(outcomes):\n    return outcomes[-1] if outcomes else None\n",
    },
    "deadline_edge": {"inclusive": "DEADLINE_INCLUSIVE = True\n", "exclusive": "DEADLINE_INCLUSIVE = False\n"},
    "deadline_action": {"give_up": "SHORTEN_LAST_WAIT = False\n", "shorten": "SHORTEN_LAST_WAIT = True\n"},
    "duration_format": {
        "fixed3": "def duration(ms):\n" + _SECONDS + 'f"{ms // 1000}.{ms % 1000:03d}s"\n',
        "trimmed": "def duration(ms):\n" + _SECONDS + 'f"{ms // 1000}.{ms % 1000:03d}".rstrip("0").rstrip(".") + "s"\n',
        "ms": 'def duration(ms):\n    return f"{ms}ms"\n',
    },
    "errors": {"first": "REPORT_ALL = False\n", "all": "REPORT_ALL = True\n"},
}

#: What a decision is when the task does not have it (its features are absent): any value works; the first.
FALLBACK_BLOCKS = {name: next(iter(values.values())) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str]) -> str:
    """``retryplan/rules.py``: the chosen block of every decision (absent decisions take a fixed one)."""
    parts = ['"""The house rules of this calculator (one block per product decision)."""\n']
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS[name])
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``."""
    return {**CORE, "retryplan/rules.py": rules_module(values)}
