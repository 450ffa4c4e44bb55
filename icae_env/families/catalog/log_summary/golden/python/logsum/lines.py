"""Log lines: the fields of each usable line, and why the others are unusable."""

from collections import namedtuple

from .clock import parse_moment
from .rules import level_of, service_name

Event = namedtuple("Event", "line moment level service latency")
Skipped = namedtuple("Skipped", "line reason")


def parse_latency(text):
    """Milliseconds, None for "-" (not measured), False when malformed."""
    if text == "-":
        return None
    digits = text[:-2] if text.endswith("ms") else text
    return int(digits) if digits.isascii() and digits.isdigit() else False


def _line(number, fields):
    if len(fields) < 4:
        return Skipped(number, "too few fields")
    moment = parse_moment(fields[0])
    if moment is None:
        return Skipped(number, "bad timestamp")
    level = level_of(fields[1])
    if level is None:
        return Skipped(number, "bad level")
    latency = parse_latency(fields[3])
    if latency is False:
        return Skipped(number, "bad latency")
    return Event(number, moment, level, service_name(fields[2]), latency)


def read_log(text):
    """The events and the skipped lines of a log (blank lines are neither)."""
    events, skipped = [], []
    for number, raw in enumerate(text.split("\n"), start=1):
        fields = (raw[:-1] if raw.endswith("\r") else raw).split()
        if fields:
            item = _line(number, fields)
            (events if type(item) is Event else skipped).append(item)
    return events, skipped
