"""Figures over events: windows, level counts, error rates and latency percentiles."""

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
    """ "n=<count>" and " p<k>=<v>ms" for p50, p90 and p99 when some event has a latency."""
    values = measured(events)
    return f"n={len(values)}" + "".join(f" p{p}={percentile(values, p)}ms" for p in (50, 90, 99) if values)
