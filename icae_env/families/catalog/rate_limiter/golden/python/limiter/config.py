"""The limit's settings, checked field by field: the first bad field is the error."""

from dataclasses import dataclass


def is_int(value):
    """JSON integers only (booleans are not numbers)."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Limit:
    capacity: int
    refill_rate: int
    tick_ms: int
    initial: object
    window_ms: object


def _optional(data, name, default):
    value = data.get(name)
    return default if value is None else value


def read_limit(data, op):
    """The limit, or the name of the first field that is not as documented."""
    capacity = data.get("capacity")
    if not is_int(capacity) or capacity < 1:
        return "capacity"
    rate = data.get("refill_rate")
    if not is_int(rate) or rate < 0:
        return "refill_rate"
    tick = _optional(data, "tick_ms", 1)
    if not is_int(tick) or tick < 1:
        return "tick_ms"
    initial = data.get("initial")
    if initial is not None and (not is_int(initial) or not 0 <= initial <= capacity):
        return "initial"
    window = data.get("window_ms")
    if op == "windows" and (not is_int(window) or window < 1):
        return "window_ms"
    if not isinstance(data.get("events"), list):
        return "events"
    return Limit(capacity, rate, tick, initial, window)
