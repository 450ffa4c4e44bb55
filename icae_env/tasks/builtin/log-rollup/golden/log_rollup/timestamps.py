"""Timestamp parsing (ISO 8601 with optional offset, or epoch seconds) and UTC formatting.

Everything is converted to whole seconds since 1970-01-01T00:00:00Z; fractions are truncated.
"""

import re

from .errors import LineError

MAX_EPOCH = 253402300799  # 9999-12-31T23:59:59Z

_ISO = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})?"
)
_EPOCH = re.compile(r"([0-9]+)(?:\.[0-9]+)?")


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if _is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(days: int) -> tuple[int, int, int]:
    """Inverse of :func:`days_from_civil`."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def parse_timestamp(text: str) -> int:
    """Return the epoch second of ``text``.

    Raises:
        LineError: ``bad timestamp`` for anything that is not a real moment in 1970..9999 UTC.
    """
    m = _ISO.fullmatch(text)
    if m:
        seconds = _parse_iso(m)
    else:
        m = _EPOCH.fullmatch(text)
        if not m:
            raise LineError("bad timestamp")
        seconds = int(m.group(1))
    if not 0 <= seconds <= MAX_EPOCH:
        raise LineError("bad timestamp")
    return seconds


def _parse_iso(m: re.Match) -> int:
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not (1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)):
        raise LineError("bad timestamp")
    if year < 1 or hour > 23 or minute > 59 or second > 59:
        raise LineError("bad timestamp")
    offset = 0
    zone = m.group(7)
    if zone and zone != "Z":
        off_h, off_m = int(zone[1:3]), int(zone[4:6])
        if off_h > 23 or off_m > 59:
            raise LineError("bad timestamp")
        offset = (off_h * 3600 + off_m * 60) * (1 if zone[0] == "+" else -1)
    local = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return local - offset


def format_utc(seconds: int) -> str:
    """Render an epoch second as ``YYYY-MM-DDTHH:MM:SSZ``."""
    days, rest = divmod(seconds, 86400)
    year, month, day = civil_from_days(days)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}Z"
