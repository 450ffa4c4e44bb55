"""The Python golden of ``log-summary``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "logsum/__init__.py": '''"""Log summaries: rollups, latencies, top services, line checks, service figures."""

from .app import handle

__all__ = ["handle"]
''',
    "logsum/clock.py": '''"""Timestamps (YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM|-HH:MM]) to epoch seconds and back."""

import datetime as dt
import re

from .rules import shift

STAMP = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\\.[0-9]{1,9})?"
                   r"(Z|[+-][0-9]{2}:[0-9]{2})?")
EPOCH = dt.date(1970, 1, 1).toordinal()
_DAYS = {}
_DATES = {}


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
''',
    "logsum/lines.py": '''"""Log lines: the fields of each usable line, and why the others are unusable."""

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
    for number, raw in enumerate(text.split("\\n"), start=1):
        fields = (raw[:-1] if raw.endswith("\\r") else raw).split()
        if fields:
            item = _line(number, fields)
            (events if type(item) is Event else skipped).append(item)
    return events, skipped
''',
    "logsum/stats.py": '''"""Figures over events: windows, level counts, error rates and latency percentiles."""

from .rules import is_error, percentile, round_tenth, window_starts

LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")


def windows(events, length):
    """(start, events) per window, in ascending start order (the house rule for windows without events)."""
    groups = {}
    for event in events:
        groups.setdefault(event.moment - event.moment % length, []).append(event)
    return [(start, groups.get(start, [])) for start in window_starts(sorted(groups), length)]


def levels(events):
    """The non-zero level counts, "DEBUG=<n> INFO=<n> ..." in level order, or none."""
    counts = {}
    for event in events:
        counts[event.level] = counts.get(event.level, 0) + 1
    return " ".join(f"{name}={counts[name]}" for name in LEVELS if name in counts) or "none"


def errors(events):
    """How many events are errors, and their share as "<percent>%" with one decimal (the house rounding)."""
    count = sum(1 for event in events if is_error(event.level))
    tenths = round_tenth(1000 * count, len(events)) if events else 0
    return count, f"{tenths // 10}.{tenths % 10}%"


def measured(events):
    """The latencies of the events that carry one, ascending."""
    return sorted(event.latency for event in events if event.latency is not None)


def latencies(events):
    """"n=<count>" and " p<k>=<v>ms" for p50, p90 and p99 when some event has a latency."""
    values = measured(events)
    return f"n={len(values)}" + "".join(f" p{p}={percentile(values, p)}ms" for p in (50, 90, 99) if values)
''',
    "logsum/reports.py": '''"""The five reports over a checked request."""

from .clock import label
from .rules import SKIP_LIMIT, TOP_DEFAULT, counted, percentile, tie_key
from .stats import errors, latencies, levels, measured, windows


def rollup(request):
    lines, blocks = [], windows(request.events, request.window)
    for start, events in blocks:
        count, share = errors(events)
        lines += [f"window {label(start)} events={len(events)}", f"  levels: {levels(events)}",
                  f"  errors: {count}/{len(events)} ({share})"]
    return lines + [f"summary: windows={len(blocks)} events={len(request.events)} skipped={len(request.skipped)}"]


def latency(request):
    lines = [f"window {label(start)} {latencies(events)}" for start, events in windows(request.events, request.window)]
    return lines + [f"all {latencies(request.events)}"]


def top(request):
    counts, first = {}, {}
    for index, event in enumerate(request.events):
        if counted(event):
            counts[event.service] = counts.get(event.service, 0) + 1
            first.setdefault(event.service, index)
    ranked = sorted(counts, key=lambda s: (-counts[s], tie_key(s, first[s])))[: request.n or TOP_DEFAULT]
    return [f"{rank}. {s} {counts[s]}" for rank, s in enumerate(ranked, start=1)] or ["no services"]


def check(request):
    lines = [f"line {s.line}: {s.reason}" for s in request.skipped]
    if SKIP_LIMIT is not None and len(lines) > SKIP_LIMIT:
        lines = lines[:SKIP_LIMIT] + [f"({len(lines) - SKIP_LIMIT} more skipped lines not shown)"]
    return lines + [f"ok: {len(request.events)} events, {len(request.skipped)} skipped"]


def services(request):
    groups = {}
    for event in request.events:
        groups.setdefault(event.service, []).append(event)
    lines = []
    for name in sorted(groups):
        count, share = errors(groups[name])
        values = measured(groups[name])
        median = f"{percentile(values, 50)}ms" if values else "-"
        lines.append(f"{name}: events={len(groups[name])} errors={count} ({share}) p50={median}")
    return lines or ["no services"]


REPORTS = {"rollup": rollup, "latency": latency, "top": top, "check": check, "services": services}
''',
    "logsum/app.py": '''"""One request in, one report out: the request checks in their fixed order, then the report."""

import re

from .lines import read_log
from .reports import REPORTS
from .rules import WINDOW_DEFAULT

WINDOW = re.compile(r"([1-9][0-9]*)([smh])")
UNITS = {"s": 1, "m": 60, "h": 3600}
MAX_N = 20


class RequestError(Exception):
    """A request problem: one error line."""


class Request:
    """A checked request: the events and skipped lines of its log, its window length and its n."""

    def __init__(self, events, skipped, window, n):
        self.events, self.skipped, self.window, self.n = events, skipped, window, n


def window_length(text):
    match = WINDOW.fullmatch(text) if isinstance(text, str) else None
    seconds = int(match.group(1)) * UNITS[match.group(2)] if match else 0
    if not 0 < seconds <= 86400:
        raise RequestError("bad window")
    return seconds


def _read(data, op):
    if not isinstance(data.get("log"), str):
        raise RequestError("log must be a string")
    window = window_length(data.get("window", WINDOW_DEFAULT)) if op in ("rollup", "latency") else None
    n = data.get("n") if op == "top" else None
    if "n" in data and op == "top" and (isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N):
        raise RequestError(f"n must be an integer from 1 to {MAX_N}")
    return Request(*read_log(data["log"]), window, n)


def handle(data):
    """The whole output of one request (a JSON object with op, title, log and the op's own keys)."""
    op = data.get("op") if isinstance(data, dict) else None
    if not isinstance(op, str) or op not in REPORTS:
        return f"error: unknown op {op!r}\\n"
    title = data.get("title")
    header = f"== {title.strip()} ==" if isinstance(title, str) and title.strip() else "== log summary =="
    try:
        lines = REPORTS[op](_read(data, op))
    except RequestError as exc:
        lines = [f"error: {exc}"]
    return "\\n".join([header, *lines]) + "\\n"
''',
}

_CANONICAL = '("DEBUG", "INFO", "WARN", "ERROR", "FATAL")'
_ALIASES = """ALIASES = {"debug": "DEBUG", "info": "INFO", "warn": "WARN", "warning": "WARN", "error": "ERROR",
           "err": "ERROR", "fatal": "FATAL", "critical": "FATAL", "crit": "FATAL"}
"""

BLOCKS = {
    "window_default": {
        "one_minute": 'WINDOW_DEFAULT = "1m"\n',
        "five_minutes": 'WINDOW_DEFAULT = "5m"\n',
        "one_hour": 'WINDOW_DEFAULT = "1h"\n',
    },
    "empty_windows": {
        "omit": "def window_starts(starts, length):\n    return starts\n",
        "show": (
            "def window_starts(starts, length):\n"
            "    return list(range(starts[0], starts[-1] + length, length)) if starts else []\n"
        ),
    },
    "error_levels": {
        "error_only": 'def is_error(level):\n    return level == "ERROR"\n',
        "error_fatal": 'def is_error(level):\n    return level == "ERROR" or level == "FATAL"\n',
        "warn_up": 'def is_error(level):\n    return level == "WARN" or level == "ERROR" or level == "FATAL"\n',
    },
    "rate_rounding": {
        "half_even": (
            "def round_tenth(numerator, denominator):\n"
            "    whole, rest = divmod(numerator, denominator)\n"
            "    return whole + (2 * rest > denominator or (2 * rest == denominator and whole % 2 == 1))\n"
        ),
        "half_up": (
            "def round_tenth(numerator, denominator):\n"
            "    whole, rest = divmod(numerator, denominator)\n"
            "    return whole + (2 * rest >= denominator)\n"
        ),
        "down": "def round_tenth(numerator, denominator):\n    return numerator // denominator\n",
    },
    "level_names": {
        "strict": f"LEVEL_NAMES = {_CANONICAL}\n\n\ndef level_of(text):\n"
        "    upper = text.upper()\n    return upper if upper in LEVEL_NAMES else None\n",
        "aliases": f"{_ALIASES}\n\ndef level_of(text):\n    return ALIASES.get(text.lower())\n",
        "upper": f"LEVEL_NAMES = {_CANONICAL}\n\n\ndef level_of(text):\n"
        "    return text if text in LEVEL_NAMES else None\n",
    },
    "timezone": {
        "utc": "def shift(seconds, offset):\n    return seconds if offset is None else seconds - offset\n",
        "wall_clock": "def shift(seconds, offset):\n    return seconds\n",
        "reject": "def shift(seconds, offset):\n    return seconds if offset is None else None\n",
    },
    "percentile": {
        "linear": (
            "def percentile(values, p):\n"
            "    low, rest = divmod(p * (len(values) - 1), 100)\n"
            "    high = values[min(low + 1, len(values) - 1)]\n"
            "    return (100 * values[low] + (high - values[low]) * rest + 50) // 100\n"
        ),
        "nearest_rank": "def percentile(values, p):\n    return values[max(1, -(-p * len(values) // 100)) - 1]\n",
        "lower": "def percentile(values, p):\n    return values[p * (len(values) - 1) // 100]\n",
    },
    "top_ties": {
        "first_seen": "def tie_key(service, first):\n    return first\n",
        "by_name": "def tie_key(service, first):\n    return service\n",
    },
    "top_scope": {
        "events": "def counted(event):\n    return True\n",
        "errors": "def counted(event):\n    return is_error(event.level)\n",
    },
    "top_default": {"three": "TOP_DEFAULT = 3\n", "five": "TOP_DEFAULT = 5\n", "ten": "TOP_DEFAULT = 10\n"},
    "skipped_limit": {"all": "SKIP_LIMIT = None\n", "five": "SKIP_LIMIT = 5\n"},
    "service_case": {
        "exact": "def service_name(text):\n    return text\n",
        "folded": "def service_name(text):\n    return text.lower()\n",
    },
}

#: What a decision is when the task does not have it (its features are absent): any value works; the first.
FALLBACK_BLOCKS = {name: next(iter(values.values())) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str]) -> str:
    """``logsum/rules.py``: the chosen block of every decision (absent decisions take a fixed one)."""
    parts = ['"""The house rules of this log summary (one block per product decision)."""\n']
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS[name])
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``."""
    return {**CORE, "logsum/rules.py": rules_module(values)}
