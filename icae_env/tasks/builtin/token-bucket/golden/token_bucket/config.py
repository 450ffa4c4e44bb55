"""Limiter configuration.

Checked in this order (first failure wins): input (must be an object), capacity,
refill_rate, tick_ms, initial, events.  Optional fields that are absent or null take
their default: tick_ms = 1, initial = capacity.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigError
from .validation import is_int


@dataclass(frozen=True)
class LimiterConfig:
    capacity: int          # whole tokens; also the largest burst a single event can take
    refill_rate: int       # whole tokens per second
    tick_ms: int = 1       # refill granularity, ticks aligned to t = 0
    initial: int = 0       # whole tokens a new bucket starts with


def parse_config(raw: object) -> tuple[LimiterConfig, list]:
    """Return the validated config and the raw (not yet validated) event list."""
    if not isinstance(raw, dict):
        raise ConfigError("input")
    capacity = raw.get("capacity")
    if not is_int(capacity) or capacity < 1:
        raise ConfigError("capacity")
    refill_rate = raw.get("refill_rate")
    if not is_int(refill_rate) or refill_rate < 0:
        raise ConfigError("refill_rate")
    tick_ms = raw.get("tick_ms")
    if tick_ms is None:
        tick_ms = 1
    elif not is_int(tick_ms) or tick_ms < 1:
        raise ConfigError("tick_ms")
    initial = raw.get("initial")
    if initial is None:
        initial = capacity
    elif not is_int(initial) or not 0 <= initial <= capacity:
        raise ConfigError("initial")
    events = raw.get("events")
    if not isinstance(events, list):
        raise ConfigError("events")
    return LimiterConfig(capacity, refill_rate, tick_ms, initial), events
