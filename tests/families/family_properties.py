"""Properties every generated task family must have, checked on real generations (shared by the family tests).

Each generated task is certified once per test process (:func:`certified`) and shared by the tests that read it. The
aggregate figures of a family (rejection share, mean paraphrase reach, median naive Overall over 30 + 15 tasks) are
``benchmarks/family_figures.py --check``'s; the suite checks every per-task property on a few tasks of each family.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import icae_env.families.generation as generation
from benchmarks.family_figures import revealed_tells, shared_cases
from icae_env.families import Generated, Knobs, TaskRejected, generate, get_family
from icae_env.families.certify import MIN_ABLATION_FAILS, NAIVE_CEILING
from icae_env.families.javascript import javascript_outputs as run_javascript
from icae_env.families.keys import KeySpace, distance
from icae_env.families.model import load_model
from icae_env.families.plan import behaviour_key
from icae_env.families.spec import SAMPLE_KINDS, Plan

_CERTIFIED: dict[tuple[str, str, int], Generated | TaskRejected] = {}


def certified(family: str, split: str, index: int) -> Generated:
    """Task ``index`` of ``split`` (default knobs), generated and certified once per test process for every test.

    Raises:
        TaskRejected: again for a task whose generation was rejected.
    """
    key = (family, split, index)
    if key not in _CERTIFIED:
        try:
            _CERTIFIED[key] = generate(family, split, index)
        except TaskRejected as exc:
            _CERTIFIED[key] = exc
    found = _CERTIFIED[key]
    if isinstance(found, TaskRejected):
        raise found
    return found


@contextmanager
def empty_generation_cache() -> Iterator[None]:
    """Generation's in-process cache emptied for the block (tasks generated in it are from scratch), then restored."""
    saved = generation._CACHE.copy()
    generation._CACHE.clear()
    try:
        yield
    finally:
        generation._CACHE.clear()
        generation._CACHE.update(saved)


def _certify_each(family: str, split: str, count: int) -> tuple[list[Generated], dict[str, str]]:
    """Tasks ``0..count-1`` of ``split``: the certified ones, and task name -> reason for the rejected ones."""
    tasks, reasons = [], {}
    for index in range(count):
        try:
            tasks.append(certified(family, split, index))
        except TaskRejected as exc:
            name, _, reason = str(exc).partition(" failed certification: ")
            reasons[name] = reason
    return tasks, reasons


def assert_few_certify(family: str, train: int, test: int, rejected: Mapping[str, str] | None = None) -> None:
    """The first ``train`` and ``test`` tasks all certify (except the ``rejected`` ones: task name -> a phrase of the
    reason, which must be rejected for it), fail >= 2 hidden cases per ablation, score <= the naive ceiling with
    every hidden decision at its naive default and reveal no tell; no hidden case is shared between the splits (with
    no train tasks: between the test tasks)."""
    rejected = rejected or {}
    splits = {"train": train, "test": test}
    for name in rejected:
        _, named, split, index = name.split("/")
        assert named == family and int(index) < splits[split], f"{name} is not among the tasks generated"
    batches = {split: _certify_each(family, split, count) for split, count in splits.items() if count}
    for split, (tasks, reasons) in batches.items():
        assert sorted(reasons) == sorted(n for n in rejected if n.split("/")[2] == split), reasons
        assert all(rejected[name] in reason for name, reason in reasons.items()), reasons
        for generated in tasks:
            metrics, name = generated.certificate.metrics, generated.plan.name
            assert generated.certificate.ok, (name, generated.certificate.failures)
            assert metrics["min_ablation_fails"] >= MIN_ABLATION_FAILS, name
            assert metrics["naive_overall"] <= NAIVE_CEILING, name
            assert not revealed_tells(generated), (name, revealed_tells(generated))
    shared = shared_cases(batches["train" if train else "test"][0], batches["test"][0])
    assert not shared, shared[:1]


def assert_distinct_keys(family: str, split: str, count: int) -> None:
    """Tasks ``0..count-1`` of ``split`` have ``count`` distinct behaviour keys."""
    chosen = get_family(family)
    keys = {behaviour_key(chosen, split, index, Knobs()) for index in range(count)}
    assert len(keys) == count


def assert_splits_apart(family: str, train: int, test: int) -> None:
    """Every one of the first ``test`` test keys is >= 3 decisions from each of the first ``train`` train keys."""
    chosen = get_family(family)
    train_keys = [behaviour_key(chosen, "train", i, Knobs()) for i in range(train)]
    space = KeySpace(chosen, Knobs().feature_count(chosen), Knobs().domain)
    for index in range(test):
        key = behaviour_key(chosen, "test", index, Knobs())
        assert space.split_of(key) == "test"
        assert min(distance(key, other) for other in train_keys) >= 3


def javascript_outputs_many(jobs: list[tuple[dict[str, str], list[Any]]]) -> list[list[str]]:
    """What each JavaScript golden's ``handle`` returns for each of its inputs (one ``node`` process for all)."""
    return run_javascript(jobs)


def javascript_outputs(files: dict[str, str], inputs: list[Any]) -> list[str]:
    """What a JavaScript golden's ``handle`` returns for each input (one ``node`` process for all of them)."""
    return run_javascript([(files, inputs)])[0]


def sampled_inputs(plan: Plan, per_kind: int, seed: str) -> list[Any]:
    """``per_kind`` inputs of every sample kind for every feature of ``plan``."""
    import random

    family, rng = get_family(plan.family), random.Random(seed)
    return [
        family.sample(plan, stem, kind, rng) for stem in plan.features for kind in SAMPLE_KINDS for _ in range(per_kind)
    ]


def sample_keys(plan: Plan, kinds: tuple[str, ...], per_feature: int, seed: str) -> set[str]:
    """Canonical JSON of ``per_feature`` inputs of each of ``kinds`` for every feature of ``plan``."""
    import random

    family, rng = get_family(plan.family), random.Random(seed)
    return {
        json.dumps(family.sample(plan, stem, kind, rng), sort_keys=True)  # type: ignore[arg-type]
        for stem in plan.features
        for kind in kinds
        for _ in range(per_feature)
    }


def assert_edge_inputs_differ(left: Plan, right: Plan, per_feature: int) -> None:
    """No malformed or boundary input sampled for ``left`` repeats among those of ``right`` (drawn content)."""
    kinds = ("malformed", "boundary")
    assert not sample_keys(left, kinds, per_feature, "left") & sample_keys(right, kinds, per_feature, "right")


_DIGEST = (
    "import hashlib, json, sys; from icae_env.families import generate; "
    "files = generate(sys.argv[1], sys.argv[2], int(sys.argv[3])).files; "
    "print(hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest())"
)


def assert_hash_seed_independent(family: str, split: str, index: int) -> None:
    """A pack generated in processes with different hash seeds equals this process's (no set order leaks in)."""
    files = certified(family, split, index).files  # first: the processes read its cross-encoder logits from the store
    digests = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        command = [sys.executable, "-c", _DIGEST, family, split, str(index)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        digests.add(done.stdout.strip())
    assert digests == {hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()}


def assert_deterministic(family: str, split: str, index: int) -> None:
    """Generating a task again from scratch gives the same pack and certificate; the next index gives another pack.

    The first generation and the next index's are this process's shared ones (:func:`certified`); the second
    generation runs with generation's cache emptied (the cross-encoder's logits, a pure function of their inputs,
    are read back from the logit store).
    """
    first = certified(family, split, index)
    with empty_generation_cache():
        second = generate(family, split, index)
    assert second is not first
    assert first.files == second.files and first.certificate == second.certificate
    assert first.files != certified(family, split, index + 1).files


def case_pairs(generated: Generated) -> tuple[list[Any], list[str]]:
    """The inputs and expected outputs of every case of every tier."""
    cases = [c for tier in ("public", "native", "enhanced") for f in generated.task.tests.tier(tier) for c in f.cases]
    return [c.input for c in cases], [c.expected_text for c in cases]


def python_outputs(plan: Plan, inputs: list[Any]) -> list[str]:
    """What the Python golden prints for each input."""
    model = load_model(get_family(plan.family).golden(plan, "python"))
    return [model(x) for x in inputs]
