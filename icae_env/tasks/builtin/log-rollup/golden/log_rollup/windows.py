"""Window sizes, alignment and the per-window aggregation."""

import re
from collections import Counter
from dataclasses import dataclass, field

from .errors import LineError, RequestError
from .records import ERROR_LEVELS, Event, is_blank, parse_line

MAX_WINDOW_S = 86400
_UNITS = {"s": 1, "m": 60, "h": 3600}
_WINDOW = re.compile(r"([1-9][0-9]*)([smh])")


def parse_window(spec: str) -> int:
    """``30s`` / ``5m`` / ``1h`` -> seconds (1..86400).

    Raises:
        RequestError: ``window`` for anything else.
    """
    m = _WINDOW.fullmatch(spec) if isinstance(spec, str) else None
    if not m:
        raise RequestError("window")
    seconds = int(m.group(1)) * _UNITS[m.group(2)]
    if seconds > MAX_WINDOW_S:
        raise RequestError("window")
    return seconds


def window_start(timestamp: int, window_s: int) -> int:
    """Floor to a multiple of the window length counted from the Unix epoch (UTC)."""
    return timestamp - timestamp % window_s


@dataclass
class Window:
    start: int
    levels: Counter = field(default_factory=Counter)
    services: Counter = field(default_factory=Counter)
    latencies: list[int] = field(default_factory=list)

    @property
    def events(self) -> int:
        return sum(self.levels.values())

    @property
    def errors(self) -> int:
        return sum(self.levels[level] for level in ERROR_LEVELS)

    def add(self, event: Event) -> None:
        self.levels[event.level] += 1
        self.services[event.service] += 1
        if event.latency_ms is not None:
            self.latencies.append(event.latency_ms)

    def top_services(self, n: int) -> list[tuple[str, int]]:
        ranked = sorted(self.services.items(), key=lambda item: (-item[1], item[0]))
        return ranked[:n]


@dataclass
class Report:
    windows: list[Window]
    skipped: list[tuple[int, str]]
    top: int
    percentiles: tuple[int, ...]

    @property
    def events(self) -> int:
        return sum(w.events for w in self.windows)


def split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def aggregate(text: str, window_s: int) -> tuple[list[Window], list[tuple[int, str]]]:
    """Bucket every usable line of ``text``; return windows in time order and skipped lines in line order."""
    buckets: dict[int, Window] = {}
    skipped: list[tuple[int, str]] = []
    for line_no, line in enumerate(split_lines(text), start=1):
        if is_blank(line):
            continue
        try:
            event = parse_line(line, line_no)
        except LineError as exc:
            skipped.append((line_no, exc.reason))
            continue
        start = window_start(event.timestamp, window_s)
        buckets.setdefault(start, Window(start)).add(event)
    return [buckets[k] for k in sorted(buckets)], skipped
