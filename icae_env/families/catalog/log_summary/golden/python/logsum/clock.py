"""Timestamps (YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM|-HH:MM]) to epoch seconds and back."""

import datetime as dt
import re

from .rules import shift

STAMP = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]{1,9})?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})?"
)
EPOCH = dt.date(1970, 1, 1).toordinal()
_DAYS: dict = {}
_DATES: dict = {}


def epoch_day(text):
    """Days since 1970-01-01 of a real date YYYY-MM-DD in the years 1970-2999, or None."""
    if text not in _DAYS:
        try:
            day = dt.date(int(text[:4]), int(text[5:7]), int(text[8:10]))
        except ValueError:
            day = None
        _DAYS[text] = day.toordinal() - EPOCH if day and 1970 <= day.year <= 2999 else None
    return _DAYS[text]


def _offset(zone):
    """Seconds east of UTC of a zone suffix; None for no suffix or Z; False for an impossible offset."""
    if zone is None or zone == "Z":
        return None
    hours, minutes = int(zone[1:3]), int(zone[4:6])
    if hours > 23 or minutes > 59:
        return False
    return (hours * 3600 + minutes * 60) * (1 if zone[0] == "+" else -1)


def parse_moment(text):
    """Epoch seconds of a timestamp (fractions cut off; the house rule for offsets), or None."""
    match = STAMP.fullmatch(text)
    if not match:
        return None
    date, hour, minute, second, zone = match.groups()
    day, hour, minute, second = epoch_day(date), int(hour), int(minute), int(second)
    offset = _offset(zone)
    if day is None or hour > 23 or minute > 59 or second > 59 or offset is False:
        return None
    return shift(day * 86400 + hour * 3600 + minute * 60 + second, offset)


def label(moment):
    """A moment as YYYY-MM-DDTHH:MM:SS (UTC)."""
    day, rest = divmod(moment, 86400)
    if day not in _DATES:
        _DATES[day] = dt.date.fromordinal(EPOCH + day).isoformat()
    return f"{_DATES[day]}T{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}"
