"""The ``log-summary`` family (held out: every task is in the test split): generation, the harness."""

from __future__ import annotations

import pytest
from family_properties import assert_edge_inputs_differ

from icae_env.errors import TaskNotFoundError
from icae_env.families import Knobs, TaskDistribution, generate, get_family
from icae_env.families.golden_tree import read_blocks
from icae_env.families.harness import harness_problems
from icae_env.families.model import load_model
from icae_env.families.plan import behaviour_key, plan_task

FAMILY = "log-summary"
BLOCKS = {d: v for d, v in read_blocks(get_family(FAMILY).folder, "python").items() if not d.startswith("_")}
LOG = (
    "2024-05-01T10:00:05Z INFO api 120\n"
    "2024-05-01T10:00:30.999Z ERROR api 80ms\n"
    "2024-05-01T10:02:10+01:00 WARN db -\n"
    "2024-05-01T10:03:00 FATAL api 300 upstream timeout\n"
    "garbage line\n"
    "\n"
)
REQUEST = {"title": "incident 7", "log": LOG}


def _run(op: str, request: dict, **values: str) -> str:
    """The golden's output with every decision at its naive default except ``values``."""
    family = get_family(FAMILY)
    plan = plan_task(family, "test", 0, Knobs())
    for decision in family.decisions:
        plan = plan.with_value(decision.name, values.get(decision.name, decision.naive))
    return load_model(family.golden(plan, "python"))({"op": op, **request})


def _lines(*lines: str) -> str:
    return "\n".join(["== incident 7 ==", *lines]) + "\n"


def _sixteen(errors: int) -> str:
    """One minute of 16 events of one service, ``errors`` of them ERROR (1/16 is an exact half at one decimal)."""
    return "".join(f"2024-05-01T10:00:{i:02d}Z {'ERROR' if i < errors else 'INFO'} api {i + 1}\n" for i in range(16))


def test_held_out_family_has_only_a_test_split():
    family = get_family(FAMILY)
    assert family.held_out and family.languages == ("python",)
    assert sum(f.core for f in family.features) >= 3 and len(family.decisions) >= 7
    with pytest.raises(TaskNotFoundError):
        behaviour_key(family, "train", 0, Knobs())
    assert FAMILY not in TaskDistribution(split="train").members()
    assert FAMILY in TaskDistribution(split="test").members()


def test_spec_and_golden_shape():
    """Decisions, skins and blocks agree; the golden is a multi-module package of a realistic size."""
    family = get_family(FAMILY)
    assert {d.name: {v.key for v in d.values} for d in family.decisions} == {k: set(v) for k, v in BLOCKS.items()}
    assert len(family.skins) >= 3 and len({frozenset(skin.words) for skin in family.skins}) == 1
    for decision in family.decisions:
        assert len(set(decision.paraphrases)) >= 8 and not set(decision.paraphrases) & set(decision.triggers)
    golden = family.golden(plan_task(family, "test", 0, Knobs()), "python")
    assert 150 <= sum(text.count("\n") for text in golden.values()) <= 600
    assert sum(path.startswith("logsum/") for path in golden) >= 4


def test_golden_with_naive_defaults():
    assert _run("rollup", REQUEST) == _lines(
        "window 2024-05-01T09:02:00 events=1", "  levels: WARN=1", "  errors: 0/1 (0.0%)",
        "window 2024-05-01T10:00:00 events=2", "  levels: INFO=1 ERROR=1", "  errors: 1/2 (50.0%)",
        "window 2024-05-01T10:03:00 events=1", "  levels: FATAL=1", "  errors: 0/1 (0.0%)",
        "summary: windows=3 events=4 skipped=1",
    )  # fmt: skip
    assert _run("latency", REQUEST) == _lines(
        "window 2024-05-01T09:02:00 n=0", "window 2024-05-01T10:00:00 n=2 p50=100ms p90=116ms p99=120ms",
        "window 2024-05-01T10:03:00 n=1 p50=300ms p90=300ms p99=300ms", "all n=3 p50=120ms p90=264ms p99=296ms",
    )  # fmt: skip
    assert _run("top", REQUEST) == _lines("1. api 3", "2. db 1")
    assert _run("check", REQUEST) == _lines("line 5: too few fields", "ok: 4 events, 1 skipped")
    assert _run("services", REQUEST) == _lines(
        "api: events=3 errors=1 (33.3%) p50=120ms", "db: events=1 errors=0 (0.0%) p50=-"
    )


def test_request_errors():
    assert _run("rollup", {**REQUEST, "window": "05m"}) == _lines("error: bad window")
    assert _run("top", {**REQUEST, "n": True}) == _lines("error: n must be an integer from 1 to 20")
    assert _run("check", {"title": " ", "log": None}) == "== log summary ==\nerror: log must be a string\n"
    assert _run("Top", REQUEST) == "error: unknown op 'Top'\n"


@pytest.mark.parametrize(
    ("op", "values", "request_", "expected"),
    [
        ("rollup", {"timezone": "wall_clock", "empty_windows": "show"}, REQUEST,
         ["window 2024-05-01T10:00:00 events=2", "  levels: INFO=1 ERROR=1", "  errors: 1/2 (50.0%)",
          "window 2024-05-01T10:01:00 events=0", "  levels: none", "  errors: 0/0 (0.0%)",
          "window 2024-05-01T10:02:00 events=1", "  levels: WARN=1", "  errors: 0/1 (0.0%)",
          "window 2024-05-01T10:03:00 events=1", "  levels: FATAL=1", "  errors: 0/1 (0.0%)",
          "summary: windows=4 events=4 skipped=1"]),
        ("check", {"timezone": "reject"}, REQUEST,
         ["line 3: bad timestamp", "line 5: too few fields", "ok: 3 events, 2 skipped"]),
        ("rollup", {"window_default": "one_hour", "error_levels": "error_fatal"}, REQUEST,
         ["window 2024-05-01T09:00:00 events=1", "  levels: WARN=1", "  errors: 0/1 (0.0%)",
          "window 2024-05-01T10:00:00 events=3", "  levels: INFO=1 ERROR=1 FATAL=1", "  errors: 2/3 (66.7%)",
          "summary: windows=2 events=4 skipped=1"]),
        ("services", {"error_levels": "warn_up", "percentile": "lower"}, REQUEST,
         ["api: events=3 errors=2 (66.7%) p50=120ms", "db: events=1 errors=1 (100.0%) p50=-"]),
        ("latency", {"percentile": "nearest_rank", "window_default": "five_minutes"}, REQUEST,
         ["window 2024-05-01T09:00:00 n=0", "window 2024-05-01T10:00:00 n=3 p50=120ms p90=300ms p99=300ms",
          "all n=3 p50=120ms p90=300ms p99=300ms"]),
        ("services", {}, {**REQUEST, "log": _sixteen(1)}, ["api: events=16 errors=1 (6.2%) p50=9ms"]),
        ("services", {"rate_rounding": "half_up"}, {**REQUEST, "log": _sixteen(1)},
         ["api: events=16 errors=1 (6.3%) p50=9ms"]),
        ("rollup", {"rate_rounding": "down", "window": "1h", "error_levels": "error_fatal"}, REQUEST,
         ["window 2024-05-01T09:00:00 events=1", "  levels: WARN=1", "  errors: 0/1 (0.0%)",
          "window 2024-05-01T10:00:00 events=3", "  levels: INFO=1 ERROR=1 FATAL=1", "  errors: 2/3 (66.6%)",
          "summary: windows=2 events=4 skipped=1"]),
        ("check", {}, {**REQUEST, "log": "2024-05-01T10:00:00Z warning api 5\n2024-05-01T10:00:01Z info api 5\n"},
         ["line 1: bad level", "ok: 1 events, 1 skipped"]),
        ("check", {"level_names": "aliases"}, {**REQUEST, "log": "2024-05-01T10:00:00Z warning api 5\n"},
         ["ok: 1 events, 0 skipped"]),
        ("check", {"level_names": "upper"}, {**REQUEST, "log": "2024-05-01T10:00:01Z info api 5\n"},
         ["line 1: bad level", "ok: 0 events, 1 skipped"]),
        ("top", {"top_ties": "by_name", "top_default": "three"},
         {**REQUEST, "log": LOG + "".join(f"2024-05-01T10:05:00Z INFO {s} 1\n" for s in ("cdn", "auth", "auth"))},
         ["1. api 3", "2. auth 2", "3. cdn 1"]),
        ("top", {"top_scope": "errors", "error_levels": "error_fatal"}, REQUEST, ["1. api 2"]),
        ("top", {"service_case": "folded"}, {**REQUEST, "log": LOG + "2024-05-01T10:05:00Z INFO DB 1\n", "n": 2},
         ["1. api 3", "2. db 2"]),
        ("top", {}, {**REQUEST, "log": LOG + "2024-05-01T10:05:00Z INFO DB 1\n", "n": 2}, ["1. api 3", "2. db 1"]),
        ("services", {"service_case": "folded"}, {**REQUEST, "log": LOG + "2024-05-01T10:05:00Z INFO DB 1\n"},
         ["api: events=3 errors=1 (33.3%) p50=120ms", "db: events=2 errors=0 (0.0%) p50=1ms"]),
        ("check", {"skipped_limit": "five"}, {**REQUEST, "log": "".join(f"junk {i}\n" for i in range(7))},
         ["line 1: too few fields", "line 2: too few fields", "line 3: too few fields", "line 4: too few fields",
          "line 5: too few fields", "(2 more skipped lines not shown)", "ok: 0 events, 7 skipped"]),
    ],
)  # fmt: skip
def test_decision_values_change_the_output(op, values, request_, expected):
    knobs = {k: v for k, v in values.items() if k != "window"}
    request = {**request_, **({"window": values["window"]} if "window" in values else {})}
    assert _run(op, request, **knobs) == _lines(*expected)


def test_malformed_and_boundary_inputs_carry_drawn_content():
    """No malformed or boundary input of one task repeats in another (every one keeps its drawn title and log)."""
    assert_edge_inputs_differ(
        plan_task(get_family(FAMILY), "test", 0, Knobs()), plan_task(get_family(FAMILY), "test", 1, Knobs()), 150
    )


@pytest.mark.slow
@pytest.mark.parametrize("index", [0, 3])
def test_real_harness(index):
    assert harness_problems(generate(FAMILY, "test", index)) == []
