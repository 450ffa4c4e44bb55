"""The request and its validation: the first problem found is the one reported."""

import datetime
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

OPS = ("hours", "pay", "daily", "top", "check", "slip")
CLOCK = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
MAX_BREAK = 720


class Invalid(Exception):
    """The request is invalid; the message is the error line without its prefix."""


@dataclass(frozen=True)
class Shift:
    number: int
    employee: str
    date: datetime.date
    clock_in: int
    clock_out: int
    recorded_break: object


@dataclass(frozen=True)
class Request:
    op: str
    period: str
    rates: dict
    shifts: tuple
    employee: object


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def rate_of(value):
    """The exact hourly rate of a JSON number, or None when it is not a positive number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    rate = Fraction(Decimal(repr(value))) if isinstance(value, float) else Fraction(value)
    return rate if rate > 0 else None


def clock_minutes(text):
    """Minutes since midnight of an HH:MM clock time, or None."""
    match = CLOCK.fullmatch(text) if isinstance(text, str) else None
    return int(match[1]) * 60 + int(match[2]) if match else None


def calendar_date(text):
    if not isinstance(text, str) or not DAY.fullmatch(text):
        return None
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return None


def read_shift(number, raw):
    if not isinstance(raw, dict):
        raise Invalid(f"shift {number} must be an object")
    employee = raw.get("employee")
    if not isinstance(employee, str) or not employee.strip():
        raise Invalid(f"shift {number}: employee is invalid")
    day = calendar_date(raw.get("date"))
    if day is None:
        raise Invalid(f"shift {number}: date is invalid")
    clock_in, clock_out = clock_minutes(raw.get("in")), clock_minutes(raw.get("out"))
    if clock_in is None:
        raise Invalid(f"shift {number}: in is invalid")
    if clock_out is None:
        raise Invalid(f"shift {number}: out is invalid")
    pause = raw.get("break")
    if pause is not None and not (is_int(pause) and 0 <= pause <= MAX_BREAK):
        raise Invalid(f"shift {number}: break is invalid")
    return Shift(number, employee, day, clock_in, clock_out, pause)


def read_request(data):
    """The checked request (raises Invalid)."""
    if not isinstance(data, dict):
        raise Invalid("request must be an object")
    op = data.get("op")
    if op not in OPS:
        raise Invalid(f"unknown op '{op}'")
    period = data.get("period")
    if not isinstance(period, str) or not period.strip():
        raise Invalid("period must be a non-empty string")
    rates = data.get("rates")
    if not isinstance(rates, dict) or any(rate_of(v) is None for v in rates.values()):
        raise Invalid("rates must map names to positive numbers")
    shifts = data.get("shifts")
    if not isinstance(shifts, list):
        raise Invalid("shifts must be a list")
    checked = tuple(read_shift(n, raw) for n, raw in enumerate(shifts, start=1))
    employee = data.get("employee")
    if op == "slip" and (not isinstance(employee, str) or not employee.strip()):
        raise Invalid("employee must be a non-empty string")
    return Request(op, period, {k: rate_of(v) for k, v in rates.items()}, checked, employee)
