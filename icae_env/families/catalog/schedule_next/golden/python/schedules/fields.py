"""Cron expressions: five fields parsed into the sets of values they allow."""

import re
from collections import namedtuple

from .rules import DOW_HIGH, DOW_LOW, DOW_STAR_HIGH, name_value, report, span, weekday_index

NUMBER = re.compile(r"[0-9]+")
MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
MONTHS_FULL = (
    "JANUARY",
    "FEBRUARY",
    "MARCH",
    "APRIL",
    "MAY",
    "JUNE",
    "JULY",
    "AUGUST",
    "SEPTEMBER",
    "OCTOBER",
    "NOVEMBER",
    "DECEMBER",
)
DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")
DAYS_FULL = ("SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY")


Field = namedtuple("Field", "name low high star_high names full", defaults=((), ()))
Schedule = namedtuple("Schedule", "minutes hours days months weekdays dom_star dow_star")  # weekdays: 0 = Sunday

FIELDS = (
    Field("minute", 0, 59, 59),
    Field("hour", 0, 23, 23),
    Field("day-of-month", 1, 31, 31),
    Field("month", 1, 12, 12, MONTHS, MONTHS_FULL),
    Field("day-of-week", DOW_LOW, DOW_HIGH, DOW_STAR_HIGH, DAYS, DAYS_FULL),
)


class ExprError(Exception):
    """The first problem of one field."""

    def __init__(self, field, reason):
        super().__init__(f"{field}: {reason}")


def _value(text, field):
    """The number of one endpoint (a name counts from the field's lowest value), or None."""
    if NUMBER.fullmatch(text):
        return int(text)
    index = name_value(text, field.names, field.full) if field.names else None
    return None if index is None else field.low + index


def _item(item, field):
    if item == "":
        raise ExprError(field.name, "empty list item")
    base, slash, step = item.partition("/")
    if "/" in step:
        raise ExprError(field.name, f"invalid token '{item}'")
    if base == "*":
        values = list(range(field.low, field.star_high + 1))
    else:
        parts = base.split("-")
        ends = [_value(part, field) for part in parts] if len(parts) <= 2 else [None]
        if None in ends:
            raise ExprError(field.name, f"invalid token '{item}'")
        for value in ends:
            if not field.low <= value <= field.high:
                raise ExprError(field.name, f"value {value} out of range {field.low}-{field.high}")
        if len(ends) == 2:
            values = span(ends[0], ends[1], field.low, field.high)
            if values is None:
                raise ExprError(field.name, f"range start {ends[0]} greater than end {ends[1]}")
        else:
            values = list(range(ends[0], (field.high if slash else ends[0]) + 1))
    if slash:
        if not NUMBER.fullmatch(step) or int(step) < 1:
            raise ExprError(field.name, f"invalid step '{step}'")
        values = values[:: int(step)]
    return values


def _field(text, field):
    """The values of one field and the problems of its items, left to right."""
    values, problems = set(), []
    for item in text.split(","):
        try:
            values.update(_item(item, field))
        except ExprError as exc:
            problems.append(str(exc))
    return values, problems


def parse(expr):
    """The schedule of ``expr`` and no problems, or None and the problem texts (the house rule picks which)."""
    texts = expr.split()
    if len(texts) != 5:
        return None, [f"expected 5 fields, got {len(texts)}"]
    parsed = [_field(text, field) for text, field in zip(texts, FIELDS)]
    shown = report([problems for _, problems in parsed if problems])
    if shown:
        return None, shown
    sets = [values for values, _ in parsed]
    minutes, hours, days, months, weekdays = (frozenset(s) for s in sets)
    weekdays = frozenset(weekday_index(n) for n in weekdays)
    return Schedule(minutes, hours, days, months, weekdays, texts[2].startswith("*"), texts[4].startswith("*")), []
