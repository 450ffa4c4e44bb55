"""One token bucket, in exact milli-token arithmetic.

A refill rate of R tokens/second is R milli-tokens per millisecond.  Refill happens only
when the clock crosses a multiple of tick_ms (absolute, aligned to t = 0); each crossed
tick adds R * tick_ms milli-tokens, and the level never exceeds capacity.
"""

from __future__ import annotations

MILLI = 1000


class Bucket:
    def __init__(self, capacity: int, refill_rate: int, tick_ms: int, initial: int, now: int) -> None:
        self.capacity_milli = capacity * MILLI
        self.refill_rate = refill_rate
        self.tick_ms = tick_ms
        self.level_milli = initial * MILLI
        self.last = now

    @property
    def per_tick_milli(self) -> int:
        return self.refill_rate * self.tick_ms

    def advance(self, now: int) -> None:
        """Refill for every tick boundary in (last, now]."""
        ticks = now // self.tick_ms - self.last // self.tick_ms
        if ticks > 0:
            self.level_milli = min(self.capacity_milli, self.level_milli + ticks * self.per_tick_milli)
        self.last = max(self.last, now)

    def try_take(self, cost: int) -> bool:
        need = cost * MILLI
        if need > self.level_milli:
            return False
        self.level_milli -= need
        return True

    def wait_ms(self, cost: int, now: int) -> int | None:
        """Milliseconds from ``now`` until ``cost`` tokens are available; None if never."""
        need = cost * MILLI
        if need > self.capacity_milli or self.per_tick_milli == 0:
            return None
        deficit = need - self.level_milli
        if deficit <= 0:
            return 0
        ticks_needed = -(-deficit // self.per_tick_milli)
        return (now // self.tick_ms + ticks_needed) * self.tick_ms - now
