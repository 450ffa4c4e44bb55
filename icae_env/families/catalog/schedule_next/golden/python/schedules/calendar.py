"""Which days and minutes a schedule fires on, walked month by month."""

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
