"""Enumeration of fire times for a parsed schedule."""
import calendar
import datetime as dt

from .parser import parse_expression

LAST_YEAR = 9999


def _cron_weekday(date):
    # datetime: Monday=0..Sunday=6 ; cron: Sunday=0..Saturday=6
    return (date.weekday() + 1) % 7


def _can_ever_fire(schedule):
    """False when no (month, day) pair of the schedule exists in any year."""
    if not (schedule.dom_star or schedule.dow_star):
        return True  # OR rule: every weekday occurs in every month
    for month in schedule.months:
        longest = 29 if month == 2 else calendar.monthrange(2001, month)[1]
        if any(day <= longest for day in schedule.days):
            return True
    return False


def _matching_days(schedule, year, month):
    last = calendar.monthrange(year, month)[1]
    for day in range(1, last + 1):
        if schedule.day_matches(day, _cron_weekday(dt.date(year, month, day))):
            yield day


def search(schedule, start, count):
    """Return up to ``count`` datetimes strictly after ``start`` (naive, minute precision).

    Fewer are returned only when the schedule runs out before the end of year 9999.
    """
    result = []
    if count <= 0 or not _can_ever_fire(schedule):
        return result
    start = start.replace(second=0, microsecond=0)
    minutes = sorted(schedule.minutes)
    hours = sorted(schedule.hours)
    months = sorted(schedule.months)
    for year in range(start.year, LAST_YEAR + 1):
        for month in months:
            if (year, month) < (start.year, start.month):
                continue
            for day in _matching_days(schedule, year, month):
                if (year, month, day) < (start.year, start.month, start.day):
                    continue
                for hour in hours:
                    for minute in minutes:
                        candidate = dt.datetime(year, month, day, hour, minute)
                        if candidate <= start:
                            continue
                        result.append(candidate)
                        if len(result) == count:
                            return result
    return result


def next_fire_times(expr, start, count=1):
    """Parse ``expr`` and return up to ``count`` fire times strictly after ``start``.

    Raises CronSyntaxError for a malformed expression. The result is shorter than
    ``count`` only when the schedule has no more fire times up to 9999-12-31T23:59.
    """
    return search(parse_expression(expr), start, count)
