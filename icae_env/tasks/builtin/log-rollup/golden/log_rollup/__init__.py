"""Log rollups: per-window level counts, error rate, latency percentiles and top services (no I/O)."""

from .errors import LineError, RequestError
from .records import LEVELS, Event, normalise_level, parse_line
from .render import render
from .stats import format_percent, nearest_rank
from .timestamps import format_utc, parse_timestamp
from .windows import Report, Window, aggregate, parse_window, window_start

__all__ = [
    "DEFAULT_PERCENTILES",
    "DEFAULT_TOP",
    "DEFAULT_WINDOW",
    "LEVELS",
    "Event",
    "LineError",
    "Report",
    "RequestError",
    "Window",
    "aggregate",
    "format_percent",
    "format_utc",
    "nearest_rank",
    "normalise_level",
    "parse_line",
    "parse_timestamp",
    "parse_window",
    "render",
    "rollup",
    "window_start",
]

DEFAULT_WINDOW = "1m"
DEFAULT_TOP = 3
DEFAULT_PERCENTILES = (50, 90, 99)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_top(top) -> int:
    if not _is_int(top) or not 1 <= top <= 10:
        raise RequestError("top")
    return top


def check_percentiles(values) -> tuple[int, ...]:
    if not isinstance(values, (list, tuple)) or not 1 <= len(values) <= 5:
        raise RequestError("percentiles")
    if not all(_is_int(p) and 1 <= p <= 100 for p in values) or len(set(values)) != len(values):
        raise RequestError("percentiles")
    return tuple(sorted(values))


def rollup(text: str, window: str = DEFAULT_WINDOW, top: int = DEFAULT_TOP,
           percentiles: tuple[int, ...] = DEFAULT_PERCENTILES) -> Report:
    """Validate the options and roll ``text`` up into per-window statistics.

    Raises:
        RequestError: naming the first bad option, checked in the order window, top, percentiles.
    """
    window_s = parse_window(window)
    top = check_top(top)
    percentiles = check_percentiles(percentiles)
    windows, skipped = aggregate(text, window_s)
    return Report(windows, skipped, top, percentiles)
