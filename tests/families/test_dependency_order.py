"""The ``dependency-order`` family: real generation (the harness), splits, and both goldens."""

from __future__ import annotations

import pytest
from family_properties import (
    case_pairs,
    javascript_outputs,
    javascript_outputs_many,
    python_outputs,
    sample_keys,
    sampled_inputs,
)

from icae_env.families import Knobs, generate, get_family
from icae_env.families.harness import harness_problems
from icae_env.families.model import load_model
from icae_env.families.plan import behaviour_key, plan_task

FAMILY = "dependency-order"
#: The built-in dep-resolver's product decisions, as this family's values.
BUILTIN = {"tie": "name_asc", "missing_report": "all_sorted", "precedence": "cycle", "cycle_start": "entry",
           "self_dep": "cycle", "case_rule": "exact", "scope": "reachable", "bad_entries": "reject"}  # fmt: skip


def _plan(**values: str):
    plan = plan_task(get_family(FAMILY), "train", 0, Knobs(features=6))
    for name, value in {**BUILTIN, **values}.items():
        plan = plan.with_value(name, value)
    return plan


def _run(plan, request: dict) -> str:
    return load_model(get_family(FAMILY).golden(plan, "python"))(request)


def test_registered_with_both_languages():
    family = get_family(FAMILY)
    assert family.languages == ("python", "javascript")
    assert not family.held_out
    assert len(family.decisions) >= 7 and len(family.skins) >= 3
    assert sum(f.core for f in family.features) == 3


def test_golden_matches_the_builtin_examples():
    plan = _plan()
    diamond = {"a": ["c", "b"], "b": ["d"], "c": ["d"], "d": []}
    assert _run(plan, {"op": "order", "packages": diamond, "root": "a"}) == "d\nb\nc\na\n"
    loop = {"a": ["b"], "b": ["c"], "c": ["b", "a"]}
    assert _run(plan, {"op": "order", "packages": loop, "root": "a"}) == "error: cycle: a -> b -> c -> a\n"
    missing = {"a": ["z", "b", "y"], "b": ["x"]}
    expected = f"error: missing {plan.word('item')}s: x, y, z\n"
    assert _run(plan, {"op": "order", "packages": missing, "root": "a"}) == expected
    assert _run(plan, {"op": "order", "packages": {"B10": [], "B2": [], "t": ["B2", "B10"]}, "root": "t"}) == (
        "B10\nB2\nt\n"
    )
    assert _run(plan, [1]) == "error: unreadable input\n"
    assert _run(plan, {"op": "order", "packages": {"a": ["b", 3]}, "root": "a"}) == "error: bad field: packages\n"


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        ({"tie": "natural"}, {"op": "order", "packages": {"t": ["B10", "B2"], "B10": [], "B2": []}, "root": "t"},
         "B2\nB10\nt\n"),
        ({"tie": "listed"}, {"op": "order", "packages": {"t": ["B10", "B2"], "B10": [], "B2": []}, "root": "t"},
         "B10\nB2\nt\n"),
        ({"cycle_start": "smallest"}, {"op": "order", "packages": {"r": ["y"], "y": ["x"], "x": ["y"]}, "root": "r"},
         "error: cycle: x -> y -> x\n"),
        ({"cycle_start": "entry"}, {"op": "order", "packages": {"r": ["y"], "y": ["x"], "x": ["y"]}, "root": "r"},
         "error: cycle: y -> x -> y\n"),
        ({"case_rule": "normalized"}, {"op": "order", "packages": {"App": ["db_pool"], "DB-Pool": []}, "root": "app"},
         "db-pool\napp\n"),
        ({"stage_rule": "latest"}, {"op": "stages", "packages": {"r": ["a", "c"], "a": ["b"], "b": [], "c": []},
         "root": "r"}, "stage 1: b\nstage 2: a, c\nstage 3: r\n"),
        ({"installed_deps": "trusted"}, {"op": "install", "packages": {"r": ["a"], "a": ["b"], "b": []}, "root": "r",
         "installed": ["a"]}, "r\n"),
        ({"why_path": "shortest", "why_direction": "up"}, {"op": "why", "packages": {"r": ["a", "t"], "a": ["t"]},
         "root": "r", "target": "t"}, "t <- r\n"),
        ({"impact_scope": "direct"}, {"op": "impact", "packages": {"r": ["a"], "a": ["t"]}, "target": "t"}, "a\n"),
        ({"bad_entries": "skip", "self_dep": "ignore"}, {"op": "order", "packages": {"a": ["a", None, "b"], "b": []},
         "root": "a"}, "b\na\n"),
    ],
)  # fmt: skip
def test_decision_values_change_the_output(values, request_, expected):
    assert _run(_plan(**values), request_) == expected


def test_javascript_golden_agrees_on_sampled_inputs():
    """Every value of every decision (others shaken): the JavaScript golden prints what the Python one prints."""
    family = get_family(FAMILY)
    plans = [_plan(**{d.name: v.key}) for d in family.decisions for v in d.values]
    inputs = [sampled_inputs(plan, 3, f"{i}") for i, plan in enumerate(plans)]
    outputs = javascript_outputs_many([(family.golden(p, "javascript"), x) for p, x in zip(plans, inputs, strict=True)])
    assert outputs == [python_outputs(p, x) for p, x in zip(plans, inputs, strict=True)]


def test_malformed_inputs_carry_drawn_content():
    """No malformed or boundary input of one task repeats in another (a bare ``packages: null`` once did)."""
    family = get_family(FAMILY)
    left = plan_task(family, "train", 0, Knobs(features=6))
    right = plan_task(family, "test", 0, Knobs(features=6))
    kinds = ("malformed", "boundary")
    assert not sample_keys(left, kinds, 150, "left") & sample_keys(right, kinds, 150, "right")


def test_javascript_golden_agrees_on_generated_cases():
    """The JavaScript golden prints the expected output (the Python golden's) of every case of generated tasks."""
    family = get_family(FAMILY)
    for index in (0, 1):
        generated = generate(FAMILY, "test", index)
        inputs, expected = case_pairs(generated)
        assert javascript_outputs(family.golden(generated.plan, "javascript"), inputs) == expected


HARNESS_TASKS = ((1, "python"), (2, "javascript"), (7, "python"))


def test_harness_tasks_behave_differently():
    family = get_family(FAMILY)
    keys = {behaviour_key(family, "train", index, Knobs(language=language)) for index, language in HARNESS_TASKS}
    assert len(keys) == len(HARNESS_TASKS)


@pytest.mark.slow
@pytest.mark.parametrize(("index", "language"), HARNESS_TASKS)
def test_real_harness_both_goldens(index, language):
    """Golden 100% in both languages (the harness scores each golden against the Python golden's outputs), empty 0%."""
    generated = generate(FAMILY, "train", index, Knobs(language=language))
    assert generated.plan.language == language
    assert f"golden/{'adapter.js' if language == 'javascript' else 'adapter.py'}" in generated.files
    assert harness_problems(generated) == []
