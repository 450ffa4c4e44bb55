"""Deterministic jitter driven by a 31-bit linear congruential generator."""

from __future__ import annotations

LCG_MULTIPLIER = 1103515245
LCG_INCREMENT = 12345
LCG_MODULUS = 2**31


class Lcg:
    """state' = (1103515245 * state + 12345) mod 2**31; each draw returns the new state."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self) -> int:
        self.state = (LCG_MULTIPLIER * self.state + LCG_INCREMENT) % LCG_MODULUS
        return self.state


def apply_jitter(mode: str, delay: int, draw: int) -> int:
    """Spread ``delay`` using the random value ``draw``."""
    if mode == "full":
        return draw % (delay + 1)
    if mode == "equal":
        half = delay // 2
        return delay - half + draw % (half + 1)
    return delay


class JitterSource:
    """Applies a policy's jitter mode, consuming one draw per computed retry delay."""

    def __init__(self, mode: str, seed: int) -> None:
        self.mode = mode
        self._lcg = Lcg(seed) if mode != "none" else None

    def spread(self, delay: int) -> int:
        if self._lcg is None:
            return delay
        return apply_jitter(self.mode, delay, self._lcg.next())
