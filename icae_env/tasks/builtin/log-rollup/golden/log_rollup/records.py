"""One log line -> one Event: field splitting, level normalisation and latency parsing."""

import re
from dataclasses import dataclass

from .errors import LineError
from .timestamps import parse_timestamp

LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")
ERROR_LEVELS = ("ERROR", "FATAL")

_ALIASES = {
    "debug": "DEBUG",
    "info": "INFO",
    "warn": "WARN",
    "warning": "WARN",
    "error": "ERROR",
    "err": "ERROR",
    "fatal": "FATAL",
    "critical": "FATAL",
    "crit": "FATAL",
}
_SPACE = re.compile(r"[ \t]+")
_LATENCY = re.compile(r"([0-9]+)(?:ms)?")


@dataclass(frozen=True)
class Event:
    """A usable log line. ``latency_ms`` is None when the line carries ``-``."""

    line_no: int
    timestamp: int
    level: str
    service: str
    latency_ms: int | None


def normalise_level(text: str) -> str:
    level = _ALIASES.get(text.lower())
    if level is None:
        raise LineError("bad level")
    return level


def parse_latency(text: str) -> int | None:
    if text == "-":
        return None
    m = _LATENCY.fullmatch(text)
    if not m:
        raise LineError("bad latency")
    return int(m.group(1))


def is_blank(line: str) -> bool:
    return line.strip(" \t") == ""


def parse_line(line: str, line_no: int = 1) -> Event:
    """Parse ``<timestamp> <level> <service> <latency> [message...]``.

    Raises:
        LineError: with reason ``too few fields``, ``bad timestamp``, ``bad level`` or
            ``bad latency``, checked in that order.
    """
    fields = _SPACE.split(line.strip(" \t"), maxsplit=4)
    if len(fields) < 4:
        raise LineError("too few fields")
    timestamp = parse_timestamp(fields[0])
    level = normalise_level(fields[1])
    latency = parse_latency(fields[3])
    return Event(line_no, timestamp, level, fields[2], latency)
