"""The Python golden of ``timesheet-pay``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "timesheet/__init__.py": '''"""Timesheets and gross pay for hourly staff, one JSON request at a time."""

from .app import handle

__all__ = ["handle"]
''',
    "timesheet/request.py": '''"""The request and its validation: the first problem found is the one reported."""

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
''',
    "timesheet/clock.py": '''"""The worked time of a shift: clock rounding, overnight shifts,
zero-length shifts and breaks."""

from .rules import ZERO_SHIFT, day_parts, round_in, round_out, unrecorded_break

DAY_MINUTES = 1440


class ZeroShift(Exception):
    """A shift whose clock-out equals its clock-in, under the house rule that rejects it."""

    def __init__(self, number):
        super().__init__(f"shift {number}: clock-out equals clock-in")


def bounds(shift):
    """Start and end (minutes from the midnight of the shift's date) after rounding."""
    start = round_in(shift.clock_in)
    if shift.clock_out == shift.clock_in:
        if ZERO_SHIFT == "error":
            raise ZeroShift(shift.number)
        if ZERO_SHIFT == "zero":
            return start, start
    overnight = DAY_MINUTES if shift.clock_out <= shift.clock_in else 0
    return start, max(start, round_out(shift.clock_out) + overnight)


def pause(shift, span):
    """The break taken off a shift of ``span`` minutes (never more than the span)."""
    taken = shift.recorded_break if shift.recorded_break is not None else unrecorded_break(span)
    return min(span, taken)


def worked(shift):
    start, end = bounds(shift)
    return end - start - pause(shift, end - start)


def pieces(shift):
    """(date, minutes) pieces of the shift's worked time for the per-day report."""
    start, end = bounds(shift)
    return day_parts(shift.date, start, end, pause(shift, end - start))


def raw_span(shift):
    """Minutes between the clock times as recorded (None: a rejected zero-length shift)."""
    if shift.clock_out == shift.clock_in:
        return {"zero": 0, "full_day": DAY_MINUTES}.get(ZERO_SHIFT)
    return (shift.clock_out - shift.clock_in) % DAY_MINUTES
''',
    "timesheet/reports.py": '''"""The six reports (lines after the header)."""

import math
from fractions import Fraction

from .clock import pieces, raw_span, worked
from .rules import OVERTIME_FACTOR, hours_text, order, overtime

LONG_SHIFT = 960


def per_employee(shifts):
    """name -> [minutes, shifts, {start date: minutes}], in order of first appearance."""
    table = {}
    for shift in shifts:
        row = table.setdefault(shift.employee, [0, 0, {}])
        minutes = worked(shift)
        row[0] += minutes
        row[1] += 1
        row[2][shift.date] = row[2].get(shift.date, 0) + minutes
    return table


def ranked(table):
    return order(list(table), {name: row[0] for name, row in table.items()})


def counted(count, noun):
    return f"{count} {noun}{'' if count == 1 else 's'}"


def hours(request):
    table = per_employee(request.shifts)
    lines = []
    for name in ranked(table):
        minutes, count = table[name][0], table[name][1]
        lines.append(f"{name}: {hours_text(minutes)} ({counted(count, 'shift')})")
    return [*lines, f"total: {hours_text(sum(row[0] for row in table.values()))}"]


def cents(amount):
    return math.floor(amount * 100 + Fraction(1, 2))


def money(value):
    return f"{value // 100}.{value % 100:02d}"


def earnings(row, rate):
    """(regular minutes, overtime minutes, regular cents, overtime cents) of one person's row."""
    minutes, _, days = row
    extra = overtime(list(days.values()))
    regular = cents(Fraction(minutes - extra, 60) * rate)
    return minutes - extra, extra, regular, cents(Fraction(extra, 60) * rate * OVERTIME_FACTOR)


def pay(request):
    table, lines, total = per_employee(request.shifts), [], 0
    for name in ranked(table):
        _, _, regular, premium = earnings(table[name], request.rates[name])
        total += regular + premium
        lines.append(f"{name}: {money(regular + premium)} (overtime {money(premium)})")
    return [*lines, f"total: {money(total)}"]


def slip(request):
    name = request.employee
    row = per_employee(s for s in request.shifts if s.employee == name)[name]
    plain, extra, regular, premium = earnings(row, request.rates[name])
    lines = [f"slip for {name}", f"regular: {money(regular)} for {hours_text(plain)}"]
    if extra:
        lines.append(f"overtime: {money(premium)} for {hours_text(extra)}")
    return [*lines, f"gross: {money(regular + premium)}"]


def daily(request):
    days = {}
    for shift in request.shifts:
        for day, minutes in pieces(shift):
            days[day] = days.get(day, 0) + minutes
    lines = [f"{day.isoformat()}: {hours_text(days[day])}" for day in sorted(days)]
    return [*lines, f"total: {hours_text(sum(days.values()))}"]


def top(request):
    table = per_employee(request.shifts)
    if not table:
        return ["top: none"]
    best = max(row[0] for row in table.values())
    names = sorted(name for name, row in table.items() if row[0] == best)
    return [f"top: {', '.join(names)} with {hours_text(best)}"]


def interval(shift):
    start = shift.date.toordinal() * 1440 + shift.clock_in
    return start, start + (raw_span(shift) or 0)


def shift_problems(shift, earlier, rates):
    problems = [] if shift.employee in rates else [f"no rate for {shift.employee}"]
    span = raw_span(shift)
    if span is None:
        return [*problems, "clock-out equals clock-in"]
    start, end = interval(shift)
    for other in earlier:
        other_start, other_end = interval(other)
        if other.employee == shift.employee and span and other_end > other_start:
            if other_start < end and start < other_end:
                problems.append(f"overlaps shift {other.number}")
                break
    if span > LONG_SHIFT:
        problems.append("longer than 16 hours")
    if span - (shift.recorded_break or 0) <= 0:
        problems.append("no time worked")
    return problems


def check(request):
    lines = []
    for index, shift in enumerate(request.shifts):
        problems = shift_problems(shift, request.shifts[:index], request.rates)
        lines += [f"shift {shift.number}: {problem}" for problem in problems]
    shifts = counted(len(request.shifts), "shift")
    if not lines:
        return [f"result: ok, {shifts}"]
    return [*lines, f"result: {counted(len(lines), 'problem')} in {shifts}"]


REPORTS = {"hours": hours, "pay": pay, "daily": daily, "top": top, "check": check, "slip": slip}
''',
    "timesheet/app.py": '''"""One request in, one report out."""

from .clock import ZeroShift, bounds
from .reports import REPORTS
from .request import Invalid, read_request


def refusal(request):
    """The error of a well-formed request that its op cannot report on, or None."""
    if request.op == "check":
        return None
    try:
        for shift in request.shifts:
            bounds(shift)
    except ZeroShift as exc:
        return str(exc)
    if request.op == "pay":
        for shift in request.shifts:
            if shift.employee not in request.rates:
                return f"no rate for {shift.employee}"
    if request.op == "slip":
        if request.employee not in request.rates:
            return f"no rate for {request.employee}"
        if all(shift.employee != request.employee for shift in request.shifts):
            return f"no shifts for {request.employee}"
    return None


def handle(data):
    """The whole output of one request: {op, period, rates, shifts, employee?}."""
    try:
        request = read_request(data)
    except Invalid as exc:
        return f"error: {exc}\\n"
    problem = refusal(request)
    if problem is not None:
        return f"error: {problem}\\n"
    lines = [f"== {request.period} ==", *REPORTS[request.op](request)]
    return "\\n".join(lines) + "\\n"
''',
}

_DECIMAL = "def hours_text(minutes):\n    hundredths = (minutes * 100 + 30) // 60\n"
_QUARTER = "def _quarter(minutes):\n    return (minutes + 7) // 15 * 15\n\n\n"
_SPLIT = """import datetime


def day_parts(day, start, end, pause):
    first = max(0, min(end, 1440) - start)
    cut = min(first, pause)
    parts = [(day, first - cut)]
    if end - start > first:
        parts.append((day + datetime.timedelta(days=1), end - start - first - (pause - cut)))
    return parts
"""
BLOCKS = {
    "rounding": {
        "exact": "def round_in(minutes):\n    return minutes\n\n\ndef round_out(minutes):\n    return minutes\n",
        "quarter": _QUARTER
        + "def round_in(minutes):\n    return _quarter(minutes)\n\n\ndef round_out(minutes):\n"
        + "    return _quarter(minutes)\n",
        "employer": (
            "def round_in(minutes):\n    return -(-minutes // 15) * 15\n\n\n"
            "def round_out(minutes):\n    return minutes // 15 * 15\n"
        ),
    },
    "overtime": {
        "period": "def overtime(days):\n    return max(0, sum(days) - 2400)\n",
        "daily": "def overtime(days):\n    return sum(max(0, d - 480) for d in days)\n",
        "daily_and_period": (
            "def overtime(days):\n    daily = sum(max(0, d - 480) for d in days)\n"
            "    return daily + max(0, sum(days) - daily - 2400)\n"
        ),
    },
    "multiplier": {
        "time_and_half": "OVERTIME_FACTOR = Fraction(3, 2)\n",
        "double": "OVERTIME_FACTOR = Fraction(2)\n",
    },
    "auto_break": {
        "none": "def unrecorded_break(span):\n    return 0\n",
        "after_six": "def unrecorded_break(span):\n    return 30 if span > 360 else 0\n",
    },
    "overnight": {
        "start_date": "def day_parts(day, start, end, pause):\n    return [(day, end - start - pause)]\n",
        "split": _SPLIT,
    },
    "zero_shift": {
        "zero": 'ZERO_SHIFT = "zero"\n',
        "error": 'ZERO_SHIFT = "error"\n',
        "full_day": 'ZERO_SHIFT = "full_day"\n',
    },
    "display": {
        "decimal": _DECIMAL + '    return f"{hundredths // 100}.{hundredths % 100:02d}"\n',
        "trimmed": _DECIMAL + '    return f"{hundredths // 100}.{hundredths % 100:02d}".rstrip("0").rstrip(".")\n',
        "hm": 'def hours_text(minutes):\n    return f"{minutes // 60}h{minutes % 60:02d}"\n',
        "hm_short": (
            "def hours_text(minutes):\n    hours, rest = divmod(minutes, 60)\n"
            '    return f"{hours}h{rest:02d}" if rest else f"{hours}h"\n'
        ),
    },
    "order": {
        "input": "def order(names, minutes):\n    return list(names)\n",
        "name": "def order(names, minutes):\n    return sorted(names)\n",
        "hours_desc": "def order(names, minutes):\n    return sorted(names, key=lambda n: (-minutes[n], n))\n",
    },
}

#: What a decision is when the task does not have it (its features are absent): any value works; the first.
FALLBACK_BLOCKS = {name: next(iter(values.values())) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str]) -> str:
    """``timesheet/rules.py``: the chosen block of every decision (absent decisions take a fixed one).

    Args:
        values: Decision name -> value key, for the decisions the task has.
    """
    parts = [
        '"""The house rules of this timesheet (one block per product decision)."""\n',
        "from fractions import Fraction\n",
    ]
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS[name])
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``.

    Args:
        values: Decision name -> value key.
    """
    return {**CORE, "timesheet/rules.py": rules_module(values)}
