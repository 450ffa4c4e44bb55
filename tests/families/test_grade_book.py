"""The ``grade-book`` family: the golden's house rules, real generation (the harness) and splits.

The expected reports below were worked out by hand from the weights and scores (not copied from the golden):
homework weighs 40 and exams 60; hw1 and hw2 are out of 10, ex1 out of 50.
"""

from __future__ import annotations

import pytest
from family_blocks import check_spec
from family_properties import (
    assert_edge_inputs_differ,
    python_outputs,
    sampled_inputs,
)

from icae_env.families import Knobs, generate, get_family
from icae_env.families.harness import harness_problems
from icae_env.families.model import load_model
from icae_env.families.plan import plan_task

FAMILY = "grade-book"
ASSESSMENTS = [
    {"id": "hw1", "category": "homework", "max": 10},
    {"id": "hw2", "category": "homework", "max": 10},
    {"id": "ex1", "category": "exams", "max": 50},
]
# Ana: homework 90 and 60 (mean 75), exam 80 -> 0.4 x 75 + 0.6 x 80 = 78.
ANA = {"name": "Ana", "scores": {"hw1": 9, "hw2": 6, "ex1": 40}}
# Ben: hw1 missing, hw2 80, exam 90 -> homework 40 (as a zero) or 80 (left out) -> 70 or 86.
BEN = {"name": "Ben", "scores": {"hw2": 8, "ex1": 45}}
# Cara: homework 75, exam 66 -> 30 + 39.6 = 69.6.
CARA = {"name": "Cara", "scores": {"hw1": 7, "hw2": 8, "ex1": 33}}
# Dan: homework 85, exam 92.5 -> 34 + 55.5 = 89.5.
DAN = {"name": "Dan", "scores": {"hw1": 9, "hw2": 8, "ex1": 46.25}}


def _run(request: object, **values: str) -> str:
    """The golden's output with every decision at its naive default except ``values``."""
    family = get_family(FAMILY)
    plan = plan_task(family, "train", 0, Knobs(features=len(family.features)))
    for decision in family.decisions:
        plan = plan.with_value(decision.name, values.get(decision.name, decision.naive))
    return load_model(family.golden(plan, "python"))(request)


def _book(op: str, *students: dict[str, object], **extra: object) -> dict[str, object]:
    return {"op": op, "course": "C1", "weights": {"homework": 40, "exams": 60}, "assessments": ASSESSMENTS,
            "students": list(students), **extra}  # fmt: skip


def _out(*lines: str) -> str:
    return "\n".join(["== C1 ==", *lines]) + "\n"


def _uniform(name: str, percent: float) -> dict[str, object]:
    """A student with the same percentage everywhere (so that the final grade is that percentage)."""
    return {"name": name, "scores": {"hw1": percent / 10, "hw2": percent / 10, "ex1": percent / 2}}


def test_registered():
    family = get_family(FAMILY)
    assert family.languages == ("python",)
    assert not family.held_out
    assert sum(f.core for f in family.features) == 3
    check_spec(family)


LATE5 = {**ANA, "late": {"ex1": 5}}  # the exam (80%) five days late
TIED = _book("ranking", DAN, ANA, {**ANA, "name": "Abe"}, CARA)  # Abe and Ana tie on 78


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        ({}, _book("final", ANA, BEN, CARA), _out("Ana: 78", "Ben: 70", "Cara: 70")),
        ({"missing": "excluded"}, _book("final", BEN), _out("Ben: 86")),
        # homework 90 and 60: dropping the 60 leaves 90 -> 36 + 48 = 84; Cara keeps 80 -> 32 + 39.6 = 71.6
        ({"drop_lowest": "one"}, _book("final", ANA, CARA), _out("Ana: 84", "Cara: 72")),
        # the missing zero is the lowest homework and goes: Ben keeps 80 -> 86
        ({"drop_lowest": "one"}, _book("final", BEN), _out("Ben: 86")),
        ({"rounding": "tenth"}, _book("final", CARA, DAN), _out("Cara: 69.6", "Dan: 89.5")),
        ({"rounding": "truncate"}, _book("final", CARA, DAN), _out("Cara: 69", "Dan: 89")),
        ({}, _book("final", DAN), _out("Dan: 90")),
        ({}, _book("final", LATE5), _out("Ana: 78")),
        # 80 - 50 = 30 on the exam -> 30 + 18 = 48; capped at 30 points: 50 -> 30 + 30 = 60
        ({"late": "per_day"}, _book("final", LATE5), _out("Ana: 48")),
        ({"late": "capped"}, _book("final", LATE5), _out("Ana: 60")),
        # two days: 80 - 20 = 60 -> 30 + 36 = 66 under both penalties
        ({"late": "capped"}, _book("final", {**ANA, "late": {"ex1": 2}}), _out("Ana: 66")),
        # nothing handed in: zeros give 0, leaving it out leaves no grade at all
        ({}, _book("final", {"name": "Zed", "scores": {"hw1": None}}), _out("Zed: 0")),
        ({"missing": "excluded"}, _book("final", {"name": "Zed", "scores": {"hw1": None}}), _out("Zed: no grade")),
    ],
)  # fmt: skip
def test_final_grades(values, request_, expected):
    assert _run(request_, **values) == expected


LETTERS = _book("letters", _uniform("Eve", 90), _uniform("Fay", 83), _uniform("Gus", 50))


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({}, _out("Eve: 90 A", "Fay: 83 B", "Gus: 50 F", "distribution: A=1 B=1 F=1")),
        ({"cutoff": "exclusive"}, _out("Eve: 90 B", "Fay: 83 B", "Gus: 50 F", "distribution: B=2 F=1")),
        ({"scale": "plus_minus"}, _out("Eve: 90 A-", "Fay: 83 B", "Gus: 50 F", "distribution: A-=1 B=1 F=1")),
        ({"scale": "plus_minus", "cutoff": "exclusive"},
         _out("Eve: 90 B+", "Fay: 83 B-", "Gus: 50 F", "distribution: B+=1 B-=1 F=1")),
    ],
)  # fmt: skip
def test_letters(values, expected):
    assert _run(LETTERS, **values) == expected


ZED = {"name": "Zed", "scores": {"hw1": None}}  # nothing handed in
BONUS = {"name": "Ana", "scores": {"hw1": 11, "hw2": 6, "ex1": 40}}  # 11 out of 10 on hw1


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        ({}, _book("final", CARA, ANA, DAN, ZED), _out("Cara: 70", "Ana: 78", "Dan: 90", "Zed: 0")),
        ({"order": "name"}, _book("final", CARA, ANA, DAN, ZED), _out("Ana: 78", "Cara: 70", "Dan: 90", "Zed: 0")),
        ({"order": "grade"}, _book("final", ZED, CARA, ANA, DAN), _out("Dan: 90", "Ana: 78", "Cara: 70", "Zed: 0")),
        ({"order": "grade", "missing": "excluded"}, _book("final", ZED, CARA, DAN),
         _out("Dan: 90", "Cara: 70", "Zed: no grade")),
        ({"order": "name"}, _book("letters", _uniform("Gus", 50), _uniform("Eve", 90)),
         _out("Eve: 90 A", "Gus: 50 F", "distribution: A=1 F=1")),
        # above the max: a data error, extra credit (110 and 60 -> 85 -> 34 + 48 = 82) or capped (100 and 60 -> 80)
        ({}, _book("final", BONUS), "error: bad data for Ana\n"),
        ({}, _book("check", BONUS), _out("Ana: hw1: score 11 above max 10")),
        ({"over_max": "extra"}, _book("final", BONUS), _out("Ana: 82")),
        ({"over_max": "cap"}, _book("final", BONUS), _out("Ana: 80")),
        ({"over_max": "cap"}, _book("check", BONUS), _out("ok: 1 students, 3 assessments")),
        ({"over_max": "extra"}, _book("stats", BONUS),
         _out("hw1 (homework): avg 11 median 11 min 11 max 11 (of 10, n=1)",
              "hw2 (homework): avg 6 median 6 min 6 max 6 (of 10, n=1)",
              "ex1 (exams): avg 40 median 40 min 40 max 40 (of 50, n=1)")),
    ],
)  # fmt: skip
def test_order_and_scores_above_the_max(values, request_, expected):
    assert _run(request_, **values) == expected


def test_letters_come_from_the_rounded_grade():
    # Dan's 89.5 rounds to 90 (an A); truncated it stays 89 (a B)
    assert _run(_book("letters", DAN)) == _out("Dan: 90 A", "distribution: A=1")
    assert _run(_book("letters", DAN), rounding="truncate") == _out("Dan: 89 B", "distribution: B=1")
    assert _run(_book("letters")) == _out("distribution: none")


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        ({}, TIED, _out("1. Dan 90", "2. Abe 78", "3. Ana 78", "4. Cara 70")),
        ({"ties": "shared"}, TIED, _out("1. Dan 90", "2. Abe 78", "2. Ana 78", "4. Cara 70")),
        ({"ties": "dense"}, TIED, _out("1. Dan 90", "2. Abe 78", "2. Ana 78", "3. Cara 70")),
        ({}, {**TIED, "top": 2}, _out("1. Dan 90", "2. Abe 78")),
        ({"ties": "shared"}, {**TIED, "top": 2}, _out("1. Dan 90", "2. Abe 78", "2. Ana 78")),
        ({"ties": "dense"}, {**TIED, "top": 3}, _out("1. Dan 90", "2. Abe 78", "2. Ana 78", "3. Cara 70")),
        # with one decimal Cara's 69.6 and Dan's 89.5 keep their tenths
        ({"rounding": "tenth"}, _book("ranking", CARA, DAN), _out("1. Dan 89.5", "2. Cara 69.6")),
        ({}, _book("ranking", {"name": "Zed", "scores": {}}), _out("1. Zed 0")),
        ({"missing": "excluded"}, _book("ranking", {"name": "Zed", "scores": {}}), _out("no graded students")),
    ],
)  # fmt: skip
def test_ranking(values, request_, expected):
    assert _run(request_, **values) == expected


STATS = _book("stats", ANA, BEN, CARA, DAN)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        # hw1: 9, 0 (Ben's missing), 7, 9 -> 25 / 4 = 6.25; hw2: 6, 8, 8, 8; ex1: 33, 40, 45, 46.25
        ({}, _out("hw1 (homework): avg 6.3 median 8 min 0 max 9 (of 10, n=4)",
                  "hw2 (homework): avg 7.5 median 8 min 6 max 8 (of 10, n=4)",
                  "ex1 (exams): avg 41.1 median 42.5 min 33 max 46.3 (of 50, n=4)")),
        ({"median": "lower"}, _out("hw1 (homework): avg 6.3 median 7 min 0 max 9 (of 10, n=4)",
                                   "hw2 (homework): avg 7.5 median 8 min 6 max 8 (of 10, n=4)",
                                   "ex1 (exams): avg 41.1 median 40 min 33 max 46.3 (of 50, n=4)")),
        ({"missing": "excluded"}, _out("hw1 (homework): avg 8.3 median 9 min 7 max 9 (of 10, n=3)",
                                       "hw2 (homework): avg 7.5 median 8 min 6 max 8 (of 10, n=4)",
                                       "ex1 (exams): avg 41.1 median 42.5 min 33 max 46.3 (of 50, n=4)")),
    ],
)  # fmt: skip
def test_stats(values, expected):
    assert _run(STATS, **values) == expected


def test_stats_without_scores():
    request = _book("stats", {"name": "Zed", "scores": {"hw1": None}})
    assert _run(request, missing="excluded") == _out(
        "hw1 (homework): no scores", "hw2 (homework): no scores", "ex1 (exams): no scores"
    )


BAD = _book(
    "check",
    {"name": "Ana", "scores": {"hw1": 12, "hw2": 6}},
    BEN,
    {"name": "Cara", "scores": {"hw3": 4}, "late": {"ex1": -1}},
    {"name": "Ben", "scores": {"hw2": -1}},
)


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        ({}, BAD, _out("Ana: hw1: score 12 above max 10")),
        ({"errors": "all"}, BAD, _out("Ana: hw1: score 12 above max 10",
                                      "Cara: hw3: unknown assessment; ex1: late days -1 invalid",
                                      "Ben: duplicate name; hw2: score -1 below 0")),
        ({"errors": "all"}, _book("check", ANA, BEN, CARA), _out("ok: 3 students, 3 assessments")),
        ({}, {**BAD, "op": "final"}, "error: bad data for Ana\n"),
        ({}, [BAD], "error: invalid request\n"),
        ({}, {**BAD, "op": "grades"}, "error: unknown op\n"),
        ({}, {**BAD, "course": " "}, "error: invalid course\n"),
        ({}, {**BAD, "weights": {"homework": 0, "exams": 60}}, "error: invalid weights\n"),
        ({}, {**BAD, "assessments": [*ASSESSMENTS, {"id": "p1", "category": "projects", "max": 5}]},
         "error: invalid assessments\n"),
        ({}, {**BAD, "students": [{"name": "Ana", "scores": [9, 6]}]}, "error: invalid students\n"),
        ({}, {**_book("ranking", ANA), "top": 0}, "error: invalid top\n"),
    ],
)  # fmt: skip
def test_check_and_errors(values, request_, expected):
    assert _run(request_, **values) == expected


def test_every_sampled_request_prints_its_course():
    family = get_family(FAMILY)
    plan = plan_task(family, "train", 2, Knobs(features=len(family.features)))
    inputs = sampled_inputs(plan, 4, "samples")
    for data, answer in zip(inputs, python_outputs(plan, inputs), strict=True):
        if answer.startswith("error: "):
            assert answer.count("\n") == 1, (data, answer)
        else:
            assert answer.startswith(f"== {data['course']} ==\n"), (data, answer)


def test_malformed_and_boundary_inputs_carry_drawn_content():
    """No malformed or boundary input of one task repeats in another."""
    family = get_family(FAMILY)
    knobs = Knobs(features=len(family.features))
    assert_edge_inputs_differ(plan_task(family, "train", 0, knobs), plan_task(family, "test", 0, knobs), 100)


@pytest.mark.slow
@pytest.mark.parametrize(("split", "index"), [("train", 1), ("test", 0)])
def test_real_harness(split, index):
    """Golden 100% on every tier, empty workspace 0%, through the real harness."""
    assert harness_problems(generate(FAMILY, split, index)) == []
