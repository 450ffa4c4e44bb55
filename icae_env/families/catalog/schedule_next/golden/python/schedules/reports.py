"""The five reports of a parsed request."""

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
    return [
        f"{field.name}: {listing(sorted(values), _labels(field, sorted(values)), len(values) == size)}"
        for field, values, size in zip(FIELDS, sets, sizes)
    ]


REPORTS = {"next": upcoming, "between": between, "daily": daily, "explain": explain, "clash": upcoming}
