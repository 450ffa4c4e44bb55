"""The Python golden of ``schedule-next``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "schedules/__init__.py": '''"""Cron schedules: next fire times, field explanations, ranges, day counts, clashes."""

from .app import handle

__all__ = ["handle"]
''',
    "schedules/fields.py": '''"""Cron expressions: five fields parsed into the sets of values they allow."""

import re
from collections import namedtuple

from .rules import DOW_HIGH, DOW_LOW, DOW_STAR_HIGH, name_value, report, span, weekday_index

NUMBER = re.compile(r"[0-9]+")
MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
MONTHS_FULL = ("JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER", "OCTOBER",
               "NOVEMBER", "DECEMBER")
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
''',
    "schedules/calendar.py": '''"""Which days and minutes a schedule fires on, walked month by month."""

import datetime as dt

from .rules import after_start, fire_set, month_days

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
LENGTHS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def horizon(start):
    """The last moment a search from ``start`` looks at: the end of the fifth calendar year after it."""
    return dt.datetime(start.year + 5, 12, 31, 23, 59)


def is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def month_length(year, month):
    return LENGTHS[month - 1] + (month == 2 and is_leap(year))


def _allowed(schedule, year, month):
    """The days of the month that the day-of-month field allows (the house rule for days a month lacks)."""
    before = month_length(year - 1, 12) if month == 1 else month_length(year, month - 1)
    return month_days(schedule.days, month_length(year, month), before)


def _month_fire_days(schedule, year, month):
    """The days of one month that ``schedule`` fires on (the house rule combines the two day fields)."""
    length = month_length(year, month)
    first = (dt.date(year, month, 1).weekday() + 1) % 7  # the weekday of the 1st, 0 is Sunday
    by_weekday = {day for weekday in schedule.weekdays for day in range((weekday - first) % 7 + 1, length + 1, 7)}
    return fire_set(_allowed(schedule, year, month), by_weekday, schedule.dom_star, schedule.dow_star)


def shared_minutes(schedules):
    """The (hour, minute) pairs every schedule of ``schedules`` allows, in order."""
    hours = sorted(frozenset.intersection(*(s.hours for s in schedules)))
    minutes = sorted(frozenset.intersection(*(s.minutes for s in schedules)))
    return [(h, m) for h in hours for m in minutes]


def fire_days(schedules, first, last):
    """The dates from ``first`` through ``last`` on which every schedule of ``schedules`` fires, in order."""
    year, month = first.year, first.month
    while (year, month) <= (last.year, last.month):
        if all(month in s.months for s in schedules):
            days = set.intersection(*(_month_fire_days(s, year, month) for s in schedules))
            low = first.day if (year, month) == (first.year, first.month) else 1
            high = last.day if (year, month) == (last.year, last.month) else 31
            for day in sorted(days):
                if low <= day <= high:
                    yield dt.date(year, month, day)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def walk(schedules, start, last):
    """The shared fire times from ``start`` (the house start rule) through the day of ``last``."""
    minutes = shared_minutes(schedules)
    if not minutes:
        return
    first = start.date()
    for day in fire_days(schedules, first, last.date()):
        for hour, minute in minutes:
            moment = dt.datetime(day.year, day.month, day.day, hour, minute)
            if day > first or after_start(moment, start):
                yield moment


def stamp(moment):
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:{moment.minute:02d} "
        f"{WEEKDAYS[moment.weekday()]}"
    )


def day_label(day):
    return f"{day.isoformat()} {WEEKDAYS[day.weekday()]}"
''',
    "schedules/reports.py": '''"""The five reports of a parsed request."""

import datetime as dt
import itertools

from .calendar import day_label, fire_days, horizon, shared_minutes, stamp, walk
from .fields import DAYS, FIELDS, MONTHS
from .rules import QUIET_DAY, before_end, listing


def upcoming(request):
    times = itertools.islice(walk(request.schedules, request.start, horizon(request.start)), request.count)
    lines = [stamp(t) for t in times]
    return lines + (["no more fire times"] if len(lines) < request.count else [])


def between(request):
    chosen = [t for t in walk(request.schedules, request.start, request.end) if before_end(t, request.end)]
    return [stamp(t) for t in chosen] + [f"total: {len(chosen)}"]


def daily(request):
    first = request.start.date()
    last = first + dt.timedelta(days=request.days - 1)
    per_day = len(shared_minutes(request.schedules))
    fired = set(fire_days(request.schedules, first, last)) if per_day else set()
    lines, total = [], 0
    for offset in range(request.days):
        day = first + dt.timedelta(days=offset)
        runs = per_day if day in fired else 0
        total += runs
        shown = runs or QUIET_DAY
        if shown is not None:
            lines.append(f"{day_label(day)}: {shown}")
    return lines + [f"total: {total}"]


def _labels(field, values):
    if field.name == "month":
        return [MONTHS[v - 1].title() for v in values]
    if field.name == "day-of-week":
        return [DAYS[v].title() for v in values]
    return [str(v) for v in values]


def explain(request):
    schedule = request.schedules[0]
    sets = (schedule.minutes, schedule.hours, schedule.days, schedule.months, schedule.weekdays)
    sizes = (60, 24, 31, 12, 7)
    return [f"{field.name}: {listing(sorted(values), _labels(field, sorted(values)), len(values) == size)}"
            for field, values, size in zip(FIELDS, sets, sizes)]


REPORTS = {"next": upcoming, "between": between, "daily": daily, "explain": explain, "clash": upcoming}
''',
    "schedules/app.py": '''"""One request in, one report out: the request checks in a fixed order, then the report."""

import datetime as dt
import re

from .fields import parse
from .reports import REPORTS
from .rules import COUNT_DEFAULT

STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}")
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
MAX_COUNT, MAX_DAYS = 100, 31
NEEDS = {"next": ("count",), "between": ("to",), "daily": ("days",), "explain": (), "clash": ("other", "count")}


class RequestError(Exception):
    """A request problem: one error line."""


class Request:
    """A checked request: its schedules, its moments and its numbers."""

    def __init__(self):
        self.schedules, self.start, self.end, self.count, self.days = [], None, None, 1, 1


def _moment(value, key, what):
    shape = DATE if what == "date" else STAMP
    if isinstance(value, str) and shape.fullmatch(value):
        try:
            moment = dt.datetime.fromisoformat(value)
        except ValueError:
            moment = None
        if moment is not None and 1970 <= moment.year <= 2999:
            return moment
    form = "YYYY-MM-DD" if what == "date" else "YYYY-MM-DDTHH:MM"
    raise RequestError(f"{key} must be a {what} ({form})")


def _integer(data, key, default, high):
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
        raise RequestError(f"{key} must be an integer from 1 to {high}")
    return value


def _expressions(data, op):
    keys = ["expr", "other"] if "other" in NEEDS[op] else ["expr"]
    for key in keys:
        if not isinstance(data.get(key), str):
            raise RequestError(f"{key} must be a string")
    return keys


def _read(data, op):
    keys = _expressions(data, op)
    request = Request()
    if op != "explain":
        request.start = _moment(data.get("from"), "from", "date" if op == "daily" else "timestamp")
    if "to" in NEEDS[op]:
        request.end = _moment(data.get("to"), "to", "timestamp")
        if request.end < request.start:
            raise RequestError("to is before from")
        if request.end - request.start > dt.timedelta(days=MAX_DAYS):
            raise RequestError(f"range longer than {MAX_DAYS} days")
    if "days" in NEEDS[op]:
        request.days = _integer(data, "days", None, MAX_DAYS)
    if "count" in NEEDS[op]:
        request.count = _integer(data, "count", COUNT_DEFAULT, MAX_COUNT)
    for key in keys:
        schedule, problems = parse(data[key])
        if problems:
            prefix = "" if key == "expr" else f"{key}: "
            return request, [f"error: {prefix}{problem}" for problem in problems]
        request.schedules.append(schedule)
    return request, []


def handle(data):
    """The whole output of one request (a JSON object with op, name, expr and the op's own keys)."""
    op = data.get("op") if isinstance(data, dict) else None
    if not isinstance(op, str) or op not in REPORTS:
        shown = op if isinstance(op, str) else ""
        return f"error: unknown op '{shown}'\\n"
    name = data.get("name")
    header = f"== {name.strip()} ==" if isinstance(name, str) and name.strip() else "== schedule =="
    try:
        request, errors = _read(data, op)
    except RequestError as exc:
        errors = [f"error: {exc}"]
    lines = errors if errors else REPORTS[op](request)
    return "\\n".join([header, *lines]) + "\\n"
''',
}

BLOCKS = {
    "day_rule": {
        "vixie": (
            "def fire_set(by_day, by_weekday, dom_star, dow_star):\n"
            "    if dom_star or dow_star:\n"
            "        return by_day & by_weekday\n"
            "    return by_day | by_weekday\n"
        ),
        "both": "def fire_set(by_day, by_weekday, dom_star, dow_star):\n    return by_day & by_weekday\n",
    },
    "weekday_numbers": {
        "zero_or_seven": (
            "DOW_LOW, DOW_HIGH, DOW_STAR_HIGH = 0, 7, 6\n\n\ndef weekday_index(number):\n    return number % 7\n"
        ),
        "zero_to_six": (
            "DOW_LOW, DOW_HIGH, DOW_STAR_HIGH = 0, 6, 6\n\n\ndef weekday_index(number):\n    return number\n"
        ),
        "quartz": "DOW_LOW, DOW_HIGH, DOW_STAR_HIGH = 1, 7, 7\n\n\ndef weekday_index(number):\n    return number - 1\n",
    },
    "names": {
        "any_case": (
            "def name_value(text, names, full):\n"
            "    return names.index(text.upper()) if text.upper() in names else None\n"
        ),
        "upper_only": "def name_value(text, names, full):\n    return names.index(text) if text in names else None\n",
        "full_names": (
            "def name_value(text, names, full):\n"
            "    for choices in (names, full):\n"
            "        if text.upper() in choices:\n"
            "            return choices.index(text.upper())\n"
            "    return None\n"
        ),
    },
    "wrap": {
        "error": (
            "def span(start, end, low, high):\n    return list(range(start, end + 1)) if start <= end else None\n"
        ),
        "wrap": (
            "def span(start, end, low, high):\n"
            "    if start <= end:\n"
            "        return list(range(start, end + 1))\n"
            "    return list(range(start, high + 1)) + list(range(low, end + 1))\n"
        ),
    },
    "error_mode": {
        "first": "def report(fields):\n    return fields[0][:1] if fields else []\n",
        "every_field": "def report(fields):\n    return [problems[0] for problems in fields]\n",
        "every_item": "def report(fields):\n    return [problem for problems in fields for problem in problems]\n",
    },
    "list_style": {
        "full": "def listing(values, labels, complete):\n    return ','.join(labels)\n",
        "every": "def listing(values, labels, complete):\n    return 'every value' if complete else ','.join(labels)\n",
        "ranges": (
            "def listing(values, labels, complete):\n"
            "    parts, i = [], 0\n"
            "    while i < len(values):\n"
            "        j = i\n"
            "        while j + 1 < len(values) and values[j + 1] == values[j] + 1:\n"
            "            j += 1\n"
            "        parts += [f'{labels[i]}-{labels[j]}'] if j - i >= 2 else labels[i : j + 1]\n"
            "        i = j + 1\n"
            "    return ','.join(parts)\n"
        ),
    },
    "out_of_month": {
        "skip": "def month_days(days, last, before):\n    return {d for d in days if d <= last}\n",
        "last_day": "def month_days(days, last, before):\n    return {min(d, last) for d in days}\n",
        "roll_over": (
            "def month_days(days, last, before):\n"
            "    rolled = {1} if any(d > before for d in days) else set()\n"
            "    return {d for d in days if d <= last} | rolled\n"
        ),
    },
    "start_rule": {
        "after": "def after_start(moment, start):\n    return moment > start\n",
        "at_or_after": "def after_start(moment, start):\n    return moment >= start\n",
    },
    "count_default": {"one": "COUNT_DEFAULT = 1\n", "five": "COUNT_DEFAULT = 5\n", "ten": "COUNT_DEFAULT = 10\n"},
    "range_end": {
        "inclusive": "def before_end(moment, end):\n    return moment <= end\n",
        "exclusive": "def before_end(moment, end):\n    return moment < end\n",
    },
    "empty_days": {"show": "QUIET_DAY = 0\n", "omit": "QUIET_DAY = None\n", "none": "QUIET_DAY = 'none'\n"},
}

#: What a decision is when the task does not have it (its features are absent): any value works; the first.
FALLBACK_BLOCKS = {name: next(iter(values.values())) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str]) -> str:
    """``schedules/rules.py``: the chosen block of every decision (absent decisions take a fixed one)."""
    parts = ['"""The house rules of this scheduler (one block per product decision)."""\n']
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS[name])
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``."""
    return {**CORE, "schedules/rules.py": rules_module(values)}
