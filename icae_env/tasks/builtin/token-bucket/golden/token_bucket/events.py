"""Event model and per-event validation (order: event, t, cost, key)."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import EventError
from .validation import is_int

DEFAULT_KEY = "default"
DEFAULT_COST = 1


@dataclass(frozen=True)
class Event:
    t: int
    cost: int = DEFAULT_COST
    key: str = DEFAULT_KEY


def parse_event(raw: object) -> Event:
    if not isinstance(raw, dict):
        raise EventError("event")
    t = raw.get("t")
    if not is_int(t) or t < 0:
        raise EventError("t")
    cost = raw.get("cost")
    if cost is None:
        cost = DEFAULT_COST
    elif not is_int(cost) or cost < 1:
        raise EventError("cost")
    key = raw.get("key")
    if key is None:
        key = DEFAULT_KEY
    elif not isinstance(key, str) or not key:
        raise EventError("key")
    return Event(t, cost, key)
