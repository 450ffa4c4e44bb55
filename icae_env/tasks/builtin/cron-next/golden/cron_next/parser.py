"""Parsing of 5-field cron expressions into sets of allowed values."""
import re
from dataclasses import dataclass

from .errors import CronSyntaxError

_NUMBER = r"[0-9]+"
_MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
_DOW_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]


@dataclass(frozen=True)
class FieldSpec:
    name: str
    low: int
    high: int
    names: dict  # upper-case name -> value
    star_high: int  # upper bound that '*' expands to


FIELDS = (
    FieldSpec("minute", 0, 59, {}, 59),
    FieldSpec("hour", 0, 23, {}, 23),
    FieldSpec("day-of-month", 1, 31, {}, 31),
    FieldSpec("month", 1, 12, {n: i + 1 for i, n in enumerate(_MONTH_NAMES)}, 12),
    FieldSpec("day-of-week", 0, 7, {n: i for i, n in enumerate(_DOW_NAMES)}, 6),
)


@dataclass(frozen=True)
class CronSchedule:
    minutes: frozenset
    hours: frozenset
    days: frozenset
    months: frozenset
    weekdays: frozenset  # 0=Sunday .. 6=Saturday (7 already folded into 0)
    dom_star: bool
    dow_star: bool

    def day_matches(self, day, weekday):
        """weekday uses cron numbering (0=Sunday)."""
        dom_ok = day in self.days
        dow_ok = weekday in self.weekdays
        if self.dom_star or self.dow_star:
            return dom_ok and dow_ok
        return dom_ok or dow_ok


def _value(text, spec):
    """Return the int for a single endpoint, or None when it is not a valid token."""
    if re.fullmatch(_NUMBER, text):
        return int(text)
    upper = text.upper()
    if upper in spec.names:
        return spec.names[upper]
    return None


def _parse_item(item, spec):
    if item == "":
        raise CronSyntaxError(spec.name, "empty list item")
    if item.count("/") > 1:
        raise CronSyntaxError(spec.name, f"invalid token '{item}'")
    base, slash, step_text = item.partition("/")
    endpoints = None
    if base == "*":
        start, end = spec.low, spec.star_high
    else:
        parts = base.split("-")
        if len(parts) > 2:
            raise CronSyntaxError(spec.name, f"invalid token '{item}'")
        endpoints = [_value(p, spec) for p in parts]
        if any(v is None for v in endpoints):
            raise CronSyntaxError(spec.name, f"invalid token '{item}'")
        for v in endpoints:
            if not spec.low <= v <= spec.high:
                raise CronSyntaxError(spec.name, f"value {v} out of range {spec.low}-{spec.high}")
        if len(endpoints) == 2:
            start, end = endpoints
            if start > end:
                raise CronSyntaxError(spec.name, f"range start {start} greater than end {end}")
        else:
            start = endpoints[0]
            end = spec.high if slash else start
    step = 1
    if slash:
        if not re.fullmatch(_NUMBER, step_text) or int(step_text) < 1:
            raise CronSyntaxError(spec.name, f"invalid step '{step_text}'")
        step = int(step_text)
    return set(range(start, end + 1, step))


def _parse_field(text, spec):
    values = set()
    for item in text.split(","):
        values |= _parse_item(item, spec)
    return values


def parse_expression(expr):
    """Parse a cron expression; raise CronSyntaxError on the first problem found."""
    fields = expr.split()
    if len(fields) != 5:
        raise CronSyntaxError(None, f"expected 5 fields, got {len(fields)}")
    sets = [_parse_field(text, spec) for text, spec in zip(fields, FIELDS)]
    weekdays = frozenset(0 if d == 7 else d for d in sets[4])
    return CronSchedule(
        minutes=frozenset(sets[0]),
        hours=frozenset(sets[1]),
        days=frozenset(sets[2]),
        months=frozenset(sets[3]),
        weekdays=weekdays,
        dom_star=fields[2].startswith("*"),
        dow_star=fields[4].startswith("*"),
    )
