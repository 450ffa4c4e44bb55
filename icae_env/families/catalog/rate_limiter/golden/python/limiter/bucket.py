"""One token bucket in exact milli-tokens (R tokens a second = R milli-tokens a ms)."""

from .rules import after_deny, refill, start_level, wait_ms

MILLI = 1000


class Bucket:
    def __init__(self, limit, now):
        self.limit, self.created, self.last = limit, now, now
        self.level = (start_level(limit.capacity) if limit.initial is None else limit.initial) * MILLI
        self.allowed = self.denied = 0

    def advance(self, now):
        if now > self.last:
            gained = refill(self.last, now, self.created, self.limit)
            self.level = min(self.limit.capacity * MILLI, self.level + gained)
            self.last = now

    def take(self, cost):
        """Whether ``cost`` tokens are there (then they are taken)."""
        if cost <= self.limit.capacity and cost * MILLI <= self.level:
            self.level -= cost * MILLI
            self.allowed += 1
            return True
        self.level = after_deny(self.level)
        self.denied += 1
        return False

    def wait(self, cost, now):
        """Milliseconds until ``cost`` tokens will be there, None when never."""
        if cost > self.limit.capacity or self.limit.refill_rate == 0:
            return None
        return wait_ms(cost * MILLI - self.level, now, self.created, self.limit)
