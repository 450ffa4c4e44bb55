"""The ``version-ranges`` family: real generation (the harness), splits, and both goldens."""

from __future__ import annotations

import pytest
from family_properties import (
    assert_edge_inputs_differ,
    case_pairs,
    javascript_outputs,
    javascript_outputs_many,
    python_outputs,
    sampled_inputs,
)

from icae_env.families import Knobs, generate, get_family
from icae_env.families.harness import harness_problems
from icae_env.families.model import load_model
from icae_env.families.plan import behaviour_key, plan_task

FAMILY = "version-ranges"
#: npm's semver conventions (the built-in semver-range task's), as this family's values.
NPM = {"order": "ascending", "display": "canonical", "invalid": "skip", "duplicates": "precedence", "prefix": "any_v",
       "prereleases": "same_tuple", "caret_zero": "leftmost", "tilde": "patch_level", "hyphen": "prefix",
       "operator_spacing": "lenient", "resolve": "highest", "no_match": "null"}  # fmt: skip


def _plan(**values: str):
    plan = plan_task(get_family(FAMILY), "train", 0, Knobs(features=5))
    for name, value in {**NPM, **values}.items():
        plan = plan.with_value(name, value)
    return plan


def _run(request: object, **values: str) -> str:
    plan = _plan(**values)
    return load_model(get_family(FAMILY).golden(plan, "python"))(request)


def _request(op: str, **fields: object) -> dict[str, object]:
    return {"op": op, "package": "pkg", **fields}


def test_registered_with_both_languages():
    family = get_family(FAMILY)
    assert family.languages == ("python", "javascript")
    assert not family.held_out
    assert len(family.decisions) >= 7 and len(family.skins) >= 3
    assert sum(f.core for f in family.features) == 3


def test_golden_follows_npm_conventions():
    listing = _request("sort", versions=["1.10.0", "v1.2.0", "1.2.0-rc.1", "1.2.0+b.1", "junk"])
    assert _run(listing) == "== pkg ==\n1.2.0-rc.1\n1.2.0\n1.10.0\n"
    match = _request("match", range="^1.2.3", versions=["1.2.3", "1.9.0", "2.0.0", "1.5.0-rc.1", "1.2.3-rc.1"])
    assert _run(match) == "== pkg ^1.2.3 ==\n1.2.3\n1.9.0\nmatched: 2 of 5\n"
    expand = _request("expand", range="^0.2.3 || ~1.2 || 1.2.3 - 2.3")
    assert _run(expand) == (
        "== pkg ^0.2.3 || ~1.2 || 1.2.3 - 2.3 ==\n>=0.2.3 <0.3.0-0\n>=1.2.0 <1.3.0-0\n>=1.2.3 <2.4.0-0\n"
    )
    resolve = _request("resolve", ranges=["^1.0.0", "^9.0.0"], versions=["1.0.0", "1.4.0", "2.0.0"])
    assert _run(resolve) == "== pkg ==\n^1.0.0 -> 1.4.0\n^9.0.0 -> null\n"
    compare = _request("compare", pairs=[["1.2.3-alpha", "1.2.3-alpha.1"], ["1.2.3+a", "v1.2.3"]])
    assert _run(compare) == "== pkg ==\n1.2.3-alpha < 1.2.3-alpha.1\n1.2.3 = 1.2.3\n"
    assert _run([1]) == "error: malformed request\n"
    assert _run(_request("satisfies")) == "error: unsupported op: satisfies\n"
    assert _run({"op": "sort", "versions": []}) == "error: missing field: package\n"


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        ({"order": "descending"}, _request("sort", versions=["1.10.0", "1.2.0"]), "== pkg ==\n1.10.0\n1.2.0\n"),
        ({"display": "as_written"}, _request("sort", versions=["v1.2.0+b.1"]), "== pkg ==\nv1.2.0+b.1\n"),
        ({"invalid": "fail"}, _request("sort", versions=["1.2.0", "1.2"]), "error: invalid version: 1.2\n"),
        ({"invalid": "report"}, _request("sort", versions=["1.2.0", "1.2", "x"]),
         "== pkg ==\n1.2.0\ninvalid: 1.2, x\n"),
        ({"duplicates": "keep"}, _request("sort", versions=["1.2.0", "1.2.0+b"]), "== pkg ==\n1.2.0\n1.2.0\n"),
        ({"duplicates": "text"}, _request("sort", versions=["1.2.0", "1.2.0+b", "1.2.0"]), "== pkg ==\n1.2.0\n1.2.0\n"),
        ({"prefix": "strict", "invalid": "report"}, _request("sort", versions=["v1.2.0", "1.2.0"]),
         "== pkg ==\n1.2.0\ninvalid: v1.2.0\n"),
        ({"prefix": "lower_v", "invalid": "report"}, _request("sort", versions=["v1.2.0", "V1.3.0"]),
         "== pkg ==\n1.2.0\ninvalid: V1.3.0\n"),
        ({"prereleases": "never"}, _request("match", range=">=1.2.3-rc.1", versions=["1.2.3-rc.2", "1.2.3"]),
         "== pkg >=1.2.3-rc.1 ==\n1.2.3\nmatched: 1 of 2\n"),
        ({"prereleases": "include"}, _request("match", range="^1.2.3", versions=["1.5.0-rc.1"]),
         "== pkg ^1.2.3 ==\n1.5.0-rc.1\nmatched: 1 of 1\n"),
        ({"caret_zero": "major"}, _request("expand", range="^0.2.3"), "== pkg ^0.2.3 ==\n>=0.2.3 <1.0.0-0\n"),
        ({"caret_zero": "zero_minor"}, _request("expand", range="^0.0.3"), "== pkg ^0.0.3 ==\n>=0.0.3 <0.1.0-0\n"),
        ({"tilde": "pessimistic"}, _request("expand", range="~1.2"), "== pkg ~1.2 ==\n>=1.2.0 <2.0.0-0\n"),
        ({"hyphen": "zero_fill"}, _request("expand", range="1.2.3 - 2.3"), "== pkg 1.2.3 - 2.3 ==\n>=1.2.3 <=2.3.0\n"),
        ({"operator_spacing": "strict"}, _request("expand", range=">= 1.2.3"), "error: invalid range: >= 1.2.3\n"),
        ({"resolve": "lowest", "no_match": "not_found"},
         _request("resolve", ranges=["^1.0.0", "^9.0.0"], versions=["1.0.0", "1.4.0"]),
         "== pkg ==\n^1.0.0 -> 1.0.0\n^9.0.0 -> not found\n"),
    ],
)  # fmt: skip
def test_decision_values_change_the_output(values, request_, expected):
    assert _run(request_, **values) == expected


def test_javascript_golden_agrees_on_sampled_inputs():
    """Every value of every decision (others at npm's): the JavaScript golden prints what the Python one prints."""
    family = get_family(FAMILY)
    plans = [_plan(**{d.name: v.key}) for d in family.decisions for v in d.values]
    inputs = [sampled_inputs(plan, 3, f"{i}") for i, plan in enumerate(plans)]
    outputs = javascript_outputs_many([(family.golden(p, "javascript"), x) for p, x in zip(plans, inputs, strict=True)])
    assert outputs == [python_outputs(p, x) for p, x in zip(plans, inputs, strict=True)]


def test_malformed_and_boundary_inputs_carry_drawn_content():
    """No malformed or boundary input of one task repeats in another (a bare ``expand "*"`` once did)."""
    family = get_family(FAMILY)
    knobs = Knobs(features=5)
    assert_edge_inputs_differ(plan_task(family, "train", 0, knobs), plan_task(family, "test", 0, knobs), 150)


def test_javascript_golden_agrees_on_generated_cases():
    """The JavaScript golden prints the expected output (the Python golden's) of every case of generated tasks."""
    family = get_family(FAMILY)
    for index in (0, 1):
        generated = generate(FAMILY, "test", index)
        inputs, expected = case_pairs(generated)
        assert javascript_outputs(family.golden(generated.plan, "javascript"), inputs) == expected


HARNESS_TASKS = ((1, "python"), (2, "javascript"))


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
