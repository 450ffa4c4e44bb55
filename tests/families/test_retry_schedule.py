"""The ``retry-schedule`` family: real generation (the harness), splits, and the golden's house rules."""

from __future__ import annotations

import pytest
from family_properties import assert_edge_inputs_differ

from icae_env.families import Knobs, generate, get_family
from icae_env.families.harness import harness_problems
from icae_env.families.model import load_model
from icae_env.families.plan import plan_task

FAMILY = "retry-schedule"
STORM = [503, 503, 503, 503, 503]


def _run(request: object, **values: str) -> str:
    """The golden's output with every decision at its naive default except ``values``."""
    family = get_family(FAMILY)
    plan = plan_task(family, "train", 0, Knobs(features=6))
    for decision in family.decisions:
        plan = plan.with_value(decision.name, values.get(decision.name, decision.naive))
    return load_model(family.golden(plan, "python"))(request)


def _policy(**fields: object) -> dict[str, object]:
    return {"strategy": "fixed", "base_ms": 100, "attempts": 3, **fields}


def _timeline(*lines: str) -> str:
    return "\n".join(["== x ==", *lines]) + "\n"


def test_registered():
    family = get_family(FAMILY)
    assert family.languages == ("python",)
    assert not family.held_out
    assert len(family.decisions) >= 7 and len(family.skins) >= 3
    assert sum(f.core for f in family.features) == 3


def test_golden_timelines_with_the_naive_defaults():
    request = {"name": "sync", "policy": _policy(base_ms=200), "outcomes": [503, "timeout", 200]}
    assert _run(request) == (
        "== sync ==\nattempt 1: 503 -> retry in 200ms (elapsed 200ms)\nattempt 2: timeout -> retry in 200ms "
        "(elapsed 400ms)\nattempt 3: 200 -> success\nresult: success attempts=3 waited=400ms\n"
    )
    linear = {
        "name": "x",
        "policy": _policy(strategy="linear", step_ms=50, attempts=4),
        "outcomes": [500, 502, 504, 404],
    }
    assert _run(linear) == _timeline(
        "attempt 1: 500 -> retry in 100ms (elapsed 100ms)", "attempt 2: 502 -> retry in 150ms (elapsed 250ms)",
        "attempt 3: 504 -> retry in 200ms (elapsed 450ms)", "attempt 4: 404 -> give up",
        "result: not_retryable attempts=4 waited=450ms",
    )  # fmt: skip
    exponential = {"name": "x", "policy": _policy(strategy="exponential", base_ms=7, multiplier=1.5, attempts=4),
                   "outcomes": [500, 500, 500, 500]}  # fmt: skip
    assert _run(exponential) == _timeline(
        "attempt 1: 500 -> retry in 7ms (elapsed 7ms)", "attempt 2: 500 -> retry in 11ms (elapsed 18ms)",
        "attempt 3: 500 -> retry in 16ms (elapsed 34ms)", "attempt 4: 500 -> give up",
        "result: max_attempts attempts=4 waited=34ms",
    )  # fmt: skip
    assert _run([1]) == "error: invalid request\n"
    assert _run({"name": "x", "policy": _policy(base_ms=-5, attempts=0)}) == "error: invalid base_ms\n"


EXPONENTIAL = {"name": "x", "policy": _policy(strategy="exponential", base_ms=7, multiplier=1.5, attempts=3),
               "outcomes": [500, 500, 500]}  # fmt: skip
JITTER = {"name": "x", "policy": _policy(strategy="exponential", base_ms=300, max_delay_ms=500, attempts=4,
                                         jitter={"mode": "equal", "seed": 42}), "outcomes": STORM[:4]}  # fmt: skip


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        ({"attempts": "retries"}, {"name": "x", "policy": _policy(attempts=1), "outcomes": STORM},
         _timeline("attempt 1: 503 -> retry in 100ms (elapsed 100ms)", "attempt 2: 503 -> give up",
                   "result: max_attempts attempts=2 waited=100ms")),
        ({"rounding": "down", "first_delay": "grown"}, EXPONENTIAL,
         _timeline("attempt 1: 500 -> retry in 10ms (elapsed 10ms)", "attempt 2: 500 -> retry in 15ms (elapsed 25ms)",
                   "attempt 3: 500 -> give up", "result: max_attempts attempts=3 waited=25ms")),
        ({"rounding": "half_even"}, EXPONENTIAL,
         _timeline("attempt 1: 500 -> retry in 7ms (elapsed 7ms)", "attempt 2: 500 -> retry in 10ms (elapsed 17ms)",
                   "attempt 3: 500 -> give up", "result: max_attempts attempts=3 waited=17ms")),
        ({"attempts_default": "five"}, {"name": "x", "policy": {"strategy": "fixed",
         "base_ms": 100}, "outcomes": STORM},
         _timeline(*(f"attempt {k}: 503 -> retry in 100ms (elapsed {100 * k}ms)" for k in range(1, 5)),
                   "attempt 5: 503 -> give up", "result: max_attempts attempts=5 waited=400ms")),
        ({}, {"name": "x", "policy": _policy(), "outcomes": [501]},
         _timeline("attempt 1: 501 -> retry in 100ms (elapsed 100ms)",
                   "attempt 2: fail -> retry in 100ms (elapsed 200ms)",
                   "attempt 3: fail -> give up", "result: max_attempts attempts=3 waited=200ms")),
        ({"unlisted": "repeat_last"}, {"name": "x", "policy": _policy(), "outcomes": [503]},
         _timeline("attempt 1: 503 -> retry in 100ms (elapsed 100ms)",
                   "attempt 2: 503 -> retry in 100ms (elapsed 200ms)",
                   "attempt 3: 503 -> give up", "result: max_attempts attempts=3 waited=200ms")),
        ({"default_retryable": "transient"}, {"name": "x", "policy": _policy(), "outcomes": [429, 501]},
         _timeline("attempt 1: 429 -> retry in 100ms (elapsed 100ms)", "attempt 2: 501 -> give up",
                   "result: not_retryable attempts=2 waited=100ms")),
        ({"error_matching": "insensitive"}, {"name": "x", "policy": _policy(), "outcomes": ["Timeout", 200]},
         _timeline("attempt 1: Timeout -> retry in 100ms (elapsed 100ms)", "attempt 2: 200 -> success",
                   "result: success attempts=2 waited=100ms")),
        ({}, {"name": "x", "policy": _policy(), "outcomes": ["Timeout"]},
         _timeline("attempt 1: Timeout -> give up", "result: not_retryable attempts=1 waited=0ms")),
        ({"duration_format": "trimmed"}, {"name": "x",
         "policy": _policy(base_ms=1500, attempts=2), "outcomes": [503, 200]},
         _timeline("attempt 1: 503 -> retry in 1.5s (elapsed 1.5s)", "attempt 2: 200 -> success",
                   "result: success attempts=2 waited=1.5s")),
        ({"duration_format": "fixed3"}, {"name": "x",
         "policy": _policy(base_ms=1500, attempts=2), "outcomes": [503, 200]},
         _timeline("attempt 1: 503 -> retry in 1.500s (elapsed 1.500s)", "attempt 2: 200 -> success",
                   "result: success attempts=2 waited=1.500s")),
        ({"errors": "all"}, {"name": "x",
         "policy": _policy(base_ms=-5, attempts=0)}, "error: invalid base_ms, attempts\n"),
        ({}, {"name": "x", "policy": _policy(base_ms=400, attempts=5, deadline_ms=800), "outcomes": STORM},
         _timeline("attempt 1: 503 -> retry in 400ms (elapsed 400ms)",
                   "attempt 2: 503 -> retry in 400ms (elapsed 800ms)",
                   "attempt 3: 503 -> give up", "result: deadline attempts=3 waited=800ms")),
        ({"deadline_edge": "exclusive"}, {"name": "x", "policy": _policy(base_ms=400, attempts=5, deadline_ms=800),
         "outcomes": STORM}, _timeline("attempt 1: 503 -> retry in 400ms (elapsed 400ms)", "attempt 2: 503 -> give up",
                                        "result: deadline attempts=2 waited=400ms")),
        ({"deadline_action": "shorten"}, {"name": "x", "policy": _policy(base_ms=300, attempts=5, deadline_ms=800),
         "outcomes": STORM}, _timeline("attempt 1: 503 -> retry in 300ms (elapsed 300ms)",
                                        "attempt 2: 503 -> retry in 300ms (elapsed 600ms)",
                                        "attempt 3: 503 -> retry in 200ms (elapsed 800ms)", "attempt 4: 503 -> give up",
                                        "result: deadline attempts=4 waited=800ms")),
        ({}, JITTER, _timeline("attempt 1: 503 -> retry in 247ms (elapsed 247ms)",
                               "attempt 2: 503 -> retry in 345ms (elapsed 592ms)",
                               "attempt 3: 503 -> retry in 494ms (elapsed 1086ms)", "attempt 4: 503 -> give up",
                               "result: max_attempts attempts=4 waited=1086ms")),
        ({"cap_order": "after_jitter"}, JITTER, _timeline("attempt 1: 503 -> retry in 247ms (elapsed 247ms)",
                                                          "attempt 2: 503 -> retry in 419ms (elapsed 666ms)",
                                                          "attempt 3: 503 -> retry in 500ms (elapsed 1166ms)",
                                                          "attempt 4: 503 -> give up",
                                                          "result: max_attempts attempts=4 waited=1166ms")),
    ],
)  # fmt: skip
def test_decision_values_change_the_output(values, request_, expected):
    assert _run(request_, **values) == expected


def test_malformed_and_boundary_inputs_carry_drawn_content():
    """No malformed or boundary input of one task repeats in another."""
    family = get_family(FAMILY)
    knobs = Knobs(features=6)
    assert_edge_inputs_differ(plan_task(family, "train", 0, knobs), plan_task(family, "test", 0, knobs), 150)


@pytest.mark.slow
@pytest.mark.parametrize("index", [0, 3])
def test_real_harness(index):
    assert harness_problems(generate(FAMILY, "train", index)) == []
