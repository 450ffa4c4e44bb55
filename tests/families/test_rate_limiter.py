"""The ``rate-limiter`` family (held out: every task is in the test split): generation, the harness."""

from __future__ import annotations

import pytest
from family_properties import assert_edge_inputs_differ

from icae_env.errors import TaskNotFoundError
from icae_env.families import Knobs, TaskDistribution, generate, get_family
from icae_env.families.harness import harness_problems
from icae_env.families.model import load_model
from icae_env.families.plan import behaviour_key, plan_task

FAMILY = "rate-limiter"
#: The built-in token-bucket's product decisions, as this family's values.
BUILTIN = {"refill": "absolute", "initial": "full", "clock": "shared", "deny_cost": "free", "oversize": "never",
           "default_key": "default", "key_case": "exact", "invalid_events": "skip", "retry_round": "ms"}  # fmt: skip
EVENTS: list[dict[str, int]] = [{"t": 0, "cost": 5}, {"t": 250}, {"t": 500}]
TRACE = {"capacity": 5, "refill_rate": 2, "events": EVENTS}


def _run(op: str, request: dict, **values: str) -> str:
    plan = plan_task(get_family(FAMILY), "test", 0, Knobs())
    for name, value in {**BUILTIN, **values}.items():
        plan = plan.with_value(name, value)
    return load_model(get_family(FAMILY).golden(plan, "python"))({"op": op, **request})


def test_held_out_family_has_only_a_test_split():
    family = get_family(FAMILY)
    assert family.held_out and family.languages == ("python",)
    assert sum(f.core for f in family.features) >= 3 and len(family.decisions) >= 7
    with pytest.raises(TaskNotFoundError):
        behaviour_key(family, "train", 0, Knobs())
    assert FAMILY not in TaskDistribution(split="train").members()
    assert FAMILY in TaskDistribution(split="test").members()


def test_golden_matches_the_builtin_example():
    assert _run("replay", TRACE) == (
        "#1 t=0 key=default ALLOW cost=5 left=0.000\n#2 t=250 key=default DENY cost=1 left=0.500\n"
        "#3 t=500 key=default ALLOW cost=1 left=0.000\n"
    )
    assert _run("retry", TRACE) == "#2 t=250 key=default retry_after=250ms\n"
    assert _run("summary", TRACE, keys_count="created") == "allowed=2 denied=1 invalid=0 keys=1 consumed=6\n"
    assert _run("replay", {**TRACE, "capacity": 0}) == "error: invalid config: capacity\n"


@pytest.mark.parametrize(
    ("op", "values", "request_", "expected"),
    [
        ("retry", {"retry_round": "seconds"}, TRACE, "#2 t=250 key=default retry_after=1s\n"),
        ("replay", {"deny_cost": "counted"}, {**TRACE, "events": EVENTS[:2]},
         "#1 t=0 key=default ALLOW cost=5 left=0.000\n#2 t=250 key=default DENY cost=1 left=0.000\n"),
        ("replay", {"refill": "continuous"}, {**TRACE, "tick_ms": 1000, "events": EVENTS[:2]},
         "#1 t=0 key=default ALLOW cost=5 left=0.000\n#2 t=250 key=default DENY cost=1 left=0.500\n"),
        ("replay", {}, {**TRACE, "tick_ms": 1000, "events": EVENTS[:2]},
         "#1 t=0 key=default ALLOW cost=5 left=0.000\n#2 t=250 key=default DENY cost=1 left=0.000\n"),
        ("replay", {"default_key": "invalid", "invalid_events": "abort"}, TRACE,
         "error: invalid event #1: key\n"),
        ("keys", {"key_case": "lower", "key_order": "name"},
         {**TRACE, "events": [{"t": 0, "key": "b"}, {"t": 1, "key": "A"}, {"t": 2, "key": "a"}]},
         "a: allowed=2 denied=0\nb: allowed=1 denied=0\n"),
        ("windows", {"window_start": "from_first"}, {**TRACE, "window_ms": 1000,
         "events": [{"t": 300}, {"t": 1200}, {"t": 1400}]}, "300-1300ms: allowed=2 denied=0\n1300-2300ms: allowed=1 "
         "denied=0\n"),
    ],
)  # fmt: skip
def test_decision_values_change_the_output(op, values, request_, expected):
    assert _run(op, request_, **values) == expected


def test_malformed_and_boundary_inputs_carry_drawn_content():
    """No malformed or boundary input of one task repeats in another (an empty trace carries where it was recorded)."""
    assert_edge_inputs_differ(
        plan_task(get_family(FAMILY), "test", 0, Knobs()), plan_task(get_family(FAMILY), "test", 1, Knobs()), 150
    )


@pytest.mark.slow
@pytest.mark.parametrize("index", [0, 3])
def test_real_harness(index):
    assert harness_problems(generate(FAMILY, "test", index)) == []
