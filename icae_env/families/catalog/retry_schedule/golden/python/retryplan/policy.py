"""The request and its validation: fields checked in a fixed order
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
