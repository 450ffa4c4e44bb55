"""From (family, split, index, knobs) to a :class:`~icae_env.families.spec.Plan`: a pure function.

The difficulty knobs (:class:`Knobs`) choose the key space (features per task, values per decision), filter it
(how many decisions differ from the naive default), and shape the texts (which decisions stay hidden, how many
public cases each feature has, whether L1 names each hidden topic). Task ``i`` of a split is the ``i``-th key of
the split's walk that fits the knobs (:mod:`icae_env.families.keys`); everything else about the task (skin, L2
reveal set, L3 masked literals) is drawn from hash streams of its identity.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from icae_env.errors import ArgumentError, TaskNotFoundError
from icae_env.families.keys import BehaviourKey, KeySpace, stream
from icae_env.families.spec import Family, Plan

__all__ = ["Knobs", "behaviour_key", "plan_task"]


class Knobs(BaseModel):
    """The difficulty knobs of generated tasks (recorded in each task's ``meta``).

    Attributes:
        features: Features per task, core ones included (None: the core ones plus two).
        domain: Values per decision at most (the naive default always among them).
        surprise: How many decisions differ from the naive default (None: any number from ``min_surprise`` up; at
            least 1, since a task whose every decision is its default is its own all-defaults golden, which the
            naive-ceiling check rejects).
        min_surprise: At least this many decisions differ from the naive default (a task that is mostly defaults
            asks little of the agent and its all-defaults golden scores too well).
        hidden_per_feature: Hidden decisions per feature; the others are stated in every PRD (None: all hidden).
        public_per_feature: Public cases per feature.
        budget: The question budget the task is meant for (recorded; envs take their own ``budget``).
        language: The golden's language (None: the family's first).
        l1_signals: Whether the L1 PRD names the topic of each hidden decision (its vague clause).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    features: int | None = Field(default=None, ge=1)
    domain: int = Field(default=4, ge=2, le=4)
    surprise: int | None = Field(default=None, ge=1)
    min_surprise: int = Field(default=3, ge=0)
    hidden_per_feature: int | None = Field(default=None, ge=0)
    public_per_feature: int = Field(default=1, ge=1, le=3)
    budget: int = Field(default=16, ge=1)
    language: Literal["python", "javascript"] | None = None
    l1_signals: bool = True

    def feature_count(self, family: Family) -> int:
        """The features per task for ``family``."""
        core = sum(f.core for f in family.features)
        return self.features if self.features is not None else min(core + 2, len(family.features))


class _Walk:
    """The keys of one (family, split, knobs) found so far, extended on demand (thread-safe)."""

    def __init__(self, keys: Iterator[BehaviourKey]) -> None:
        self.keys, self.found, self.lock = keys, list[BehaviourKey](), threading.Lock()

    def get(self, index: int) -> BehaviourKey | None:
        with self.lock:
            while len(self.found) <= index:
                key = next(self.keys, None)
                if key is None:
                    return None
                self.found.append(key)
            return self.found[index]


_WALKS: dict[tuple[Any, ...], _Walk] = {}
_WALKS_LOCK = threading.Lock()


def _surprise(family: Family, key: BehaviourKey) -> int:
    return sum(value != family.decision(name).naive for name, value in key.values)


def behaviour_key(family: Family, split: str, index: int, knobs: Knobs) -> BehaviourKey:
    """The behaviour key of task ``index`` of ``split``.

    Raises:
        TaskNotFoundError: when the split has fewer keys under these knobs, or none at all (a held-out family's
            train split).
    """
    if family.held_out and split != "test":
        raise TaskNotFoundError(f"family {family.name!r} is held out: every task is in the test split (--split test)")
    n_features = knobs.feature_count(family)
    ident = (family.name, split, n_features, knobs.domain, knobs.surprise, knobs.min_surprise)
    with _WALKS_LOCK:
        if ident not in _WALKS:
            space = KeySpace(family, n_features, knobs.domain)

            def fits(key: BehaviourKey) -> bool:
                count = _surprise(family, key)
                return count == knobs.surprise if knobs.surprise is not None else count >= knobs.min_surprise

            keys = (k for k in space.walk(split) if fits(k))
            _WALKS[ident] = _Walk(keys)
        walk = _WALKS[ident]
    key = walk.get(index)
    if key is None:
        found = len(walk.found)
        some = f"{found} task(s) (indices 0..{found - 1})" if found else "no task at all"
        raise TaskNotFoundError(
            f"family {family.name!r} has {some} in its {split} split under these knobs, so no task {index}; "
            f"knobs: {knobs}"
        )
    return key


def _ranked(names: list[str], *parts: Any) -> list[str]:
    return sorted(names, key=lambda name: stream(*parts, name))


def plan_task(family: Family, split: str, index: int, knobs: Knobs, attempt: int = 0) -> Plan:
    """The plan of task ``index`` of ``split`` (``attempt`` > 0 re-draws what certification may reject).

    Raises:
        ArgumentError: for a bad index or a language the family has no golden in.
        TaskNotFoundError: when the split has no such task.
    """
    if not isinstance(index, int) or index < 0:
        raise ArgumentError(f"index must be an int >= 0, got {index!r}")
    language = knobs.language or family.languages[0]
    if language not in family.languages:
        raise ArgumentError(f"family {family.name!r} has no {language} golden; languages: {list(family.languages)}")
    key = behaviour_key(family, split, index, knobs)
    ident = (family.name, split, index, attempt)
    present = [name for name, _ in key.values]
    stated = _stated(family, key, knobs, ident)
    hidden = [name for name in present if name not in stated]
    literals = [name for name in hidden if family.decision(name).value(key.as_dict()[name]).literal]
    return Plan(
        family=family.name,
        split=split,
        index=index,
        skin=family.skins[stream(*ident[:3], "skin") % len(family.skins)],
        features=key.features,
        values=key.as_dict(),
        language=language,
        revealed=tuple(sorted(_ranked(hidden, *ident, "reveal")[: (len(hidden) + 1) // 2])),
        masked=tuple(sorted(_ranked(literals, *ident, "mask")[:3])),
        stated=tuple(stated),
        knobs=knobs.model_dump(),
        seed=stream(*ident, "seed"),
        attempt=attempt,
        version=family.version,
    )


def _stated(family: Family, key: BehaviourKey, knobs: Knobs, ident: tuple[Any, ...]) -> list[str]:
    """The decisions stated in every PRD: per feature, those beyond ``hidden_per_feature`` (by hash order)."""
    if knobs.hidden_per_feature is None:
        return []
    present = {name for name, _ in key.values}
    stated: set[str] = set()
    for stem in key.features:
        own = [d.name for d in family.decisions if stem in d.features and d.name in present]
        stated.update(_ranked(own, *ident, stem, "stated")[knobs.hidden_per_feature :])
    return [name for name, _ in key.values if name in stated]
