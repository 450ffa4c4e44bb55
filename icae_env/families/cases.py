"""The three case tiers of a generated task, searched with the in-process model and its single-decision ablations.

* **Public** (what the agent can see): the family's simple inputs, kept only while every hidden decision stays
  open, i.e. some wrong value of it still prints what the chosen value prints on every public case.
* **Native** (hidden): for every hidden decision and every wrong value, two inputs on which the golden and that
  ablation print different outputs, then typical inputs up to five per feature.
* **Enhanced** (hidden): boundary and malformed inputs, at least three per feature, none equal to a native input.

Expected outputs come from the Python golden's own code (:mod:`icae_env.families.model`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from icae_env.errors import IcaeEnvError
from icae_env.families.keys import _domain
from icae_env.families.model import Model, load_model
from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["Ablations", "Cases", "GenerationError", "ablations", "make_cases"]

NATIVE_PER_FEATURE = 5
ENHANCED_PER_FEATURE = 4
PER_PAIR = 2
TRIES = 80


class GenerationError(IcaeEnvError, RuntimeError):
    """A task could not be generated (a sampler or golden of the family misbehaved, or no input distinguished)."""


@dataclass
class Cases:
    """Cases per tier: stem -> ``[(input, expected_output), ...]``."""

    public: dict[str, list[tuple[Any, str]]] = field(default_factory=dict)
    native: dict[str, list[tuple[Any, str]]] = field(default_factory=dict)
    enhanced: dict[str, list[tuple[Any, str]]] = field(default_factory=dict)


Ablations = dict[tuple[str, str], Model]


def _key(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def ablations(family: Family, plan: Plan) -> Ablations:
    """The model of every single-decision ablation: ``(decision, wrong value) -> model`` over the hidden decisions."""
    domain = int(plan.knobs.get("domain", 4))
    models: Ablations = {}
    for name in plan.hidden:
        for value in _domain(family.decision(name), domain):
            if value != plan.values[name]:
                models[(name, value)] = load_model(family.golden(plan.with_value(name, value), "python"))
    return models


class _Search:
    """The sampling state of one task's case search."""

    def __init__(self, family: Family, plan: Plan, model: Model, others: Ablations) -> None:
        self.family, self.plan, self.model, self.others = family, plan, model, others
        self.rng = plan.rng("cases")
        naive = plan
        for name in plan.hidden:
            naive = naive.with_value(name, family.decision(name).naive)
        self.naive = load_model(family.golden(naive, "python"))

    def differs(self, model: Model, data: Any) -> bool:
        """Whether ``model`` prints something else than the golden for ``data`` (a crash counts)."""
        try:
            return model(data) != self.run(data)
        except GenerationError:
            raise
        except Exception:  # noqa: BLE001 - a crash of the other model is a difference too
            return True

    def run(self, data: Any) -> str:
        try:
            return self.model(data)
        except Exception as exc:  # noqa: BLE001 - the family's golden must answer every input it samples
            raise GenerationError(
                f"{self.plan.name}: the golden raised {type(exc).__name__}: {exc} on {data!r}"
            ) from None

    def sample(self, stem: str, kind: SampleKind) -> Any:
        data = self.family.sample(self.plan, stem, kind, self.rng)
        json.dumps(data)  # a JSON value, or the family is broken
        return data

    def agrees(self, model: Model, inputs: list[Any]) -> bool:
        try:
            return all(model(x) == self.run(x) for x in inputs)
        except Exception:  # noqa: BLE001 - an ablation that crashes on an input disagrees with the golden
            return False


def _public(search: _Search, per_feature: int) -> dict[str, list[Any]]:
    """Simple inputs per feature, each kept only if every hidden decision stays open after it."""
    chosen: dict[str, list[Any]] = {stem: [] for stem in search.plan.features}
    kept: list[Any] = []
    for stem in search.plan.features:
        for _ in range(TRIES):
            if len(chosen[stem]) >= per_feature:
                break
            data = search.sample(stem, "public")
            if _key(data) in {_key(x) for x in kept}:
                continue
            trial = [*kept, data]
            if all(
                any(search.agrees(m, trial) for (d, _), m in search.others.items() if d == name)
                for name in search.plan.hidden
            ):
                chosen[stem].append(data)
                kept.append(data)
    return chosen


def _distinguishing(
    search: _Search, decision: str, model: Model, stems: list[str], taken: set[str]
) -> list[tuple[str, Any]]:
    """Inputs on which ``model`` (an ablation) and the golden differ, preferring ones the naive golden fails too."""
    found: list[tuple[str, Any]] = []
    spare: list[tuple[str, Any]] = []
    for attempt in range(TRIES):
        if len(found) >= PER_PAIR:
            break
        stem = stems[attempt % len(stems)]
        data = search.sample(stem, "typical" if attempt % 3 else "boundary")
        if _key(data) in taken or not search.differs(model, data):
            continue
        (found if search.differs(search.naive, data) else spare).append((stem, data))
        taken.add(_key(data))
    found += spare[: PER_PAIR - len(found)]
    if len(found) < PER_PAIR:
        raise GenerationError(f"{search.plan.name}: no {PER_PAIR} inputs tell {decision} apart from an ablation")
    return found


def _native(search: _Search) -> dict[str, list[Any]]:
    native: dict[str, list[Any]] = {stem: [] for stem in search.plan.features}
    taken: set[str] = set()
    for (name, _), model in search.others.items():
        stems = [s for s in search.plan.features if s in search.family.decision(name).features]
        for stem, data in _distinguishing(search, name, model, stems, taken):
            native[stem].append(data)
    for stem in search.plan.features:
        _fill(search, stem, "typical", native[stem], NATIVE_PER_FEATURE, taken)
    return native


def _fill(search: _Search, stem: str, kind: SampleKind, chosen: list[Any], quota: int, taken: set[str]) -> None:
    """Add new inputs of ``kind`` up to ``quota``; at most half of those added may be ones the naive golden passes."""
    easy, allowed = 0, max(0, quota - len(chosen)) // 2
    for attempt in range(TRIES):
        if len(chosen) >= quota:
            return
        alternate: SampleKind = "malformed" if kind == "boundary" and attempt % 2 else kind
        data = search.sample(stem, alternate)
        if _key(data) in taken:
            continue
        hard = search.differs(search.naive, data)
        if hard or easy < allowed or attempt >= TRIES - quota:
            easy += not hard
            chosen.append(data)
            taken.add(_key(data))


def _enhanced(search: _Search, native: dict[str, list[Any]], public: dict[str, list[Any]]) -> dict[str, list[Any]]:
    taken = {_key(x) for inputs in (*native.values(), *public.values()) for x in inputs}
    enhanced: dict[str, list[Any]] = {stem: [] for stem in search.plan.features}
    for stem in search.plan.features:
        _fill(search, stem, "boundary", enhanced[stem], ENHANCED_PER_FEATURE, taken)
    return enhanced


def make_cases(family: Family, plan: Plan, golden: dict[str, str], others: Ablations) -> Cases:
    """Search the three tiers of ``plan``'s task (see the module docstring).

    Raises:
        GenerationError: when the family's samplers cannot meet a tier's needs or its golden raises.
    """
    search = _Search(family, plan, load_model(golden), others)
    public = _public(search, int(plan.knobs.get("public_per_feature", 1)))
    native = _native(search)
    enhanced = _enhanced(search, native, public)

    def tier(inputs: dict[str, list[Any]]) -> dict[str, list[tuple[Any, str]]]:
        return {stem: [(x, search.run(x)) for x in xs] for stem, xs in inputs.items() if xs}

    return Cases(public=tier(public), native=tier(native), enhanced=tier(enhanced))
