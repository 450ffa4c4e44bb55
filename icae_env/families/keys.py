"""Hash-derived randomness, behaviour keys, and the splits of a family's key space.

* Every random stream is ``stream(family, split, index, purpose, ...)``: a sha256 of its identity, never
  ``seed + index`` (adjacent seeds of other generators overlap almost entirely).
* A **behaviour key** is what a task asks for: its features and the value of every decision they depend on (the
  skin is not part of it). Keys are enumerated without replacement: the key space is walked in an order given by a
  hash-keyed affine permutation of its mixed-radix index, and task ``i`` of a split is the ``i``-th key of the walk
  that belongs to the split and fits the knobs, so no two tasks of a family behave the same.
* Splits: a held-out family's tasks are all ``test``. In any other family three **split decisions** (decisions of
  core features, picked by hash) and a **test value** for each are fixed: test keys take all three test values,
  train keys none of them, so every test task is at least three decisions away from every training task.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from icae_env.errors import ArgumentError

__all__ = ["BehaviourKey", "KeySpace", "distance", "stream"]

SPLITS = ("train", "test")


def stream(*parts: Any) -> int:
    """A 64-bit integer derived from ``parts`` by sha256 (the seed of one random stream)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class BehaviourKey:
    """What a task asks for: its features and its decisions' values.

    Attributes:
        features: Feature stems, in the family's order.
        values: ``(decision, value)`` pairs of the decisions those features depend on, in the family's order.
    """

    features: tuple[str, ...]
    values: tuple[tuple[str, str], ...]

    def as_dict(self) -> dict[str, str]:
        """Decision -> value."""
        return dict(self.values)


def distance(a: BehaviourKey, b: BehaviourKey) -> int:
    """How many decisions differ between ``a`` and ``b`` (a decision only one of them has counts as differing)."""
    left, right = a.as_dict(), b.as_dict()
    return sum(left.get(name) != right.get(name) for name in set(left) | set(right))


class KeySpace:
    """The behaviour keys of one family under a feature count and a domain size, and its splits.

    Args:
        family: The family (a :class:`~icae_env.families.spec.Family`).
        n_features: Features per task (core ones included).
        domain: At most this many values per decision (the naive default always among them).
    """

    def __init__(self, family: Any, n_features: int, domain: int) -> None:
        core = [f.stem for f in family.features if f.core]
        optional = [f.stem for f in family.features if not f.core]
        if not len(core) <= n_features <= len(core) + len(optional):
            raise ArgumentError(f"features must be in {len(core)}..{len(core) + len(optional)} for {family.name!r}")
        if domain < 2:
            raise ArgumentError(f"domain must be >= 2 values per decision, got {domain}")
        order = [f.stem for f in family.features]
        extras = itertools.combinations(optional, n_features - len(core))
        self.feature_sets = [tuple(s for s in order if s in set(core) | set(c)) for c in extras]
        self.family, self.domain = family, domain
        self.choices = {d.name: _domain(d, domain) for d in family.decisions}
        self.split_decisions = _split_decisions(family, self.choices)

    def _decode(self, number: int) -> BehaviourKey:
        number, pick = divmod(number, len(self.feature_sets))
        features = self.feature_sets[pick]
        values = []
        for decision in self.family.decisions:  # every decision is a digit, so the radix does not depend on features
            number, digit = divmod(number, len(self.choices[decision.name]))
            if set(decision.features) & set(features):
                values.append((decision.name, self.choices[decision.name][digit]))
        return BehaviourKey(features, tuple(values))

    @property
    def size(self) -> int:
        """How many mixed-radix indexes the space has (keys repeat where a decision is absent)."""
        return len(self.feature_sets) * math.prod(len(v) for v in self.choices.values())

    def split_of(self, key: BehaviourKey) -> str | None:
        """``train``, ``test``, or None for a key too close to the other split to be in either."""
        if self.family.held_out:
            return "test"
        values = key.as_dict()
        hits = [values.get(name) == test for name, test in self.split_decisions]
        return "test" if all(hits) else ("train" if not any(hits) else None)

    def walk(self, split: str, salt: str = "") -> Iterator[BehaviourKey]:
        """The keys of ``split`` in the family's fixed pseudo-random order, each once."""
        if split not in SPLITS:
            raise ArgumentError(f"split must be one of {list(SPLITS)}, got {split!r}")
        size, seen = self.size, set()
        step = _coprime(size, stream(self.family.name, "walk-step", salt))
        start = stream(self.family.name, "walk-start", salt) % size
        for i in range(size):
            key = self._decode((start + i * step) % size)
            if key not in seen and self.split_of(key) == split:
                seen.add(key)
                yield key


def _domain(decision: Any, domain: int) -> tuple[str, ...]:
    """The first ``domain`` values of ``decision``, the naive default always among them."""
    keys = [v.key for v in decision.values]
    kept = [k for k in keys if k == decision.naive] + [k for k in keys if k != decision.naive]
    return tuple(k for k in keys if k in kept[:domain])


def _coprime(n: int, seed: int) -> int:
    """A step in ``1..n-1`` coprime to ``n`` chosen by ``seed`` (1 when n <= 2)."""
    if n <= 2:
        return 1
    for offset in range(n):
        step = (seed + offset) % (n - 1) + 1
        if math.gcd(step, n) == 1:
            return step
    return 1


@cache
def _split_plan(name: str, decisions: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[tuple[str, str], ...]:
    ranked = sorted(decisions, key=lambda d: stream(name, "split-decision", d[0]))[:3]
    return tuple((d, values[stream(name, "split-value", d) % len(values)]) for d, values in ranked)


def _split_decisions(family: Any, choices: dict[str, tuple[str, ...]]) -> tuple[tuple[str, str], ...]:
    """Three decisions of core features and the test value of each (never the naive default: test tasks surprise)."""
    core = {f.stem for f in family.features if f.core}
    candidates = tuple(
        (d.name, tuple(v for v in choices[d.name] if v != d.naive)) for d in family.decisions if set(d.features) & core
    )
    if len(candidates) < 3 and not family.held_out:
        raise ArgumentError(f"family {family.name!r} needs >= 3 decisions of core features for its splits")
    return _split_plan(family.name, candidates)
