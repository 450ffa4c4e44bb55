"""Replay events through per-key buckets under a shared monotonic clock."""

from __future__ import annotations

from dataclasses import dataclass, field

from .bucket import Bucket
from .config import LimiterConfig
from .errors import EventError
from .events import Event, parse_event


@dataclass(frozen=True)
class Decision:
    index: int                 # 1-based position in the event list
    event: Event | None        # None for an invalid event
    allowed: bool = False
    level_milli: int = 0
    retry_after_ms: int | None = None
    invalid_field: str = ""


@dataclass
class Simulation:
    decisions: list[Decision] = field(default_factory=list)
    allowed: int = 0
    denied: int = 0
    invalid: int = 0
    consumed: int = 0
    keys: int = 0


def simulate(config: LimiterConfig, raw_events: list) -> Simulation:
    sim = Simulation()
    buckets: dict[str, Bucket] = {}
    clock: int | None = None
    for index, raw in enumerate(raw_events, start=1):
        try:
            event = parse_event(raw)
        except EventError as exc:
            sim.invalid += 1
            sim.decisions.append(Decision(index, None, invalid_field=exc.field))
            continue
        now = event.t if clock is None else max(clock, event.t)
        clock = now
        bucket = buckets.get(event.key)
        if bucket is None:
            bucket = Bucket(config.capacity, config.refill_rate, config.tick_ms, config.initial, now)
            buckets[event.key] = bucket
        bucket.advance(now)
        if bucket.try_take(event.cost):
            sim.allowed += 1
            sim.consumed += event.cost
            sim.decisions.append(Decision(index, event, True, bucket.level_milli))
        else:
            sim.denied += 1
            sim.decisions.append(
                Decision(index, event, False, bucket.level_milli, bucket.wait_ms(event.cost, now))
            )
    sim.keys = len(buckets)
    return sim
