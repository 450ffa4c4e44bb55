"""The ``schedule-next`` family: calendar arithmetic, the house rules, real generation (the harness) and splits.

The expected fire times below were worked out by hand (weekdays checked against ``datetime``, not the golden).
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

FAMILY = "schedule-next"


def _run(request: object, **values: str) -> str:
    """The golden's output with every decision at its naive default except ``values``."""
    family = get_family(FAMILY)
    plan = plan_task(family, "train", 0, Knobs(features=len(family.features)))
    for decision in family.decisions:
        plan = plan.with_value(decision.name, values.get(decision.name, decision.naive))
    return load_model(family.golden(plan, "python"))(request)


def _out(*lines: str) -> str:
    return "\n".join(["== job ==", *lines]) + "\n"


def _next(expr: str, start: str, count: int | None = None) -> dict[str, object]:
    request: dict[str, object] = {"op": "next", "name": "job", "expr": expr, "from": start}
    return request if count is None else {**request, "count": count}


def test_registered():
    family = get_family(FAMILY)
    assert family.languages == ("python",)
    assert not family.held_out
    assert sum(f.core for f in family.features) == 3
    check_spec(family)


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        # leap years: 2028 has a 29 February; the search stops at the end of the fifth calendar year (2030)
        ({}, _next("0 12 29 2 *", "2025-03-01T00:00", 2), _out("2028-02-29T12:00 Tue", "no more fire times")),
        # 2100 is no leap year, and 2104 is past the horizon (end of 2101)
        ({}, _next("0 0 29 2 *", "2096-03-01T00:00", 1), _out("no more fire times")),
        ({"out_of_month": "last_day"}, _next("0 0 29 2 *", "2099-01-01T00:00", 3),
         _out("2099-02-28T00:00 Sat", "2100-02-28T00:00 Sun", "2101-02-28T00:00 Mon")),
        # month lengths: the 31st in April and June
        ({}, _next("30 6 31 * *", "2026-04-01T00:00", 3),
         _out("2026-05-31T06:30 Sun", "2026-07-31T06:30 Fri", "2026-08-31T06:30 Mon")),
        ({"out_of_month": "last_day"}, _next("30 6 31 * *", "2026-04-01T00:00", 3),
         _out("2026-04-30T06:30 Thu", "2026-05-31T06:30 Sun", "2026-06-30T06:30 Tue")),
        ({"out_of_month": "roll_over"}, _next("30 6 31 * *", "2026-04-01T00:00", 4),
         _out("2026-05-01T06:30 Fri", "2026-05-31T06:30 Sun", "2026-07-01T06:30 Wed", "2026-07-31T06:30 Fri")),
        # the day fields: Friday the 13th (AND) or every Friday and every 13th (Vixie OR)
        ({}, _next("0 0 13 * 5", "2026-02-01T00:00", 3),
         _out("2026-02-13T00:00 Fri", "2026-03-13T00:00 Fri", "2026-11-13T00:00 Fri")),
        ({"day_rule": "vixie"}, _next("0 0 13 * 5", "2026-02-01T00:00", 4),
         _out("2026-02-06T00:00 Fri", "2026-02-13T00:00 Fri", "2026-02-20T00:00 Fri", "2026-02-27T00:00 Fri")),
        ({"day_rule": "vixie"}, _next("0 0 */2 * 5", "2026-02-01T00:00", 2),
         _out("2026-02-13T00:00 Fri", "2026-02-27T00:00 Fri")),
        # the year boundary and the start rule
        ({}, _next("59 23 31 12 *", "2026-12-31T23:59", 1), _out("2027-12-31T23:59 Fri")),
        ({"start_rule": "at_or_after"}, _next("59 23 31 12 *", "2026-12-31T23:59", 1), _out("2026-12-31T23:59 Thu")),
        # weekday numbers and names
        ({}, _next("0 9 * * 7", "2026-03-01T00:00"), _out("error: day-of-week: value 7 out of range 0-6")),
        ({"weekday_numbers": "zero_or_seven"}, _next("0 9 * * 7", "2026-03-01T00:00", 2),
         _out("2026-03-01T09:00 Sun", "2026-03-08T09:00 Sun")),
        ({"weekday_numbers": "quartz"}, _next("0 9 * * 7", "2026-03-01T00:00", 1), _out("2026-03-07T09:00 Sat")),
        ({"names": "upper_only"}, _next("0 9 * * sat", "2026-03-01T00:00", 1),
         _out("error: day-of-week: invalid token 'sat'")),
        ({"names": "full_names"}, _next("0 9 * * Saturday", "2026-03-01T00:00", 1), _out("2026-03-07T09:00 Sat")),
        # the default count
        ({"count_default": "one"}, _next("0 0 1 * *", "2026-01-15T00:00"), _out("2026-02-01T00:00 Sun")),
    ],
)  # fmt: skip
def test_fire_times(values, request_, expected):
    assert _run(request_, **values) == expected


def _explain(expr: str) -> dict[str, object]:
    return {"op": "explain", "name": "job", "expr": expr}


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        ({}, _explain("*/15 9-11 1,15 JAN-MAR mon-wed"),
         _out("minute: 0,15,30,45", "hour: 9,10,11", "day-of-month: 1,15", "month: Jan,Feb,Mar",
              "day-of-week: Mon,Tue,Wed")),
        ({"list_style": "ranges"}, _explain("0 9-11 1,2 * 1-5"),
         _out("minute: 0", "hour: 9-11", "day-of-month: 1,2", "month: Jan-Dec", "day-of-week: Mon-Fri")),
        ({"list_style": "every"}, _explain("0 9 * * *"),
         _out("minute: 0", "hour: 9", "day-of-month: every value", "month: every value", "day-of-week: every value")),
        ({"wrap": "wrap"}, _explain("0 22-1 * NOV-FEB FRI-MON"),
         _out("minute: 0", "hour: 0,1,22,23", f"day-of-month: {','.join(map(str, range(1, 32)))}",
              "month: Jan,Feb,Nov,Dec", "day-of-week: Sun,Mon,Fri,Sat")),
        ({}, _explain("0 22-1 * * *"), _out("error: hour: range start 22 greater than end 1")),
        ({}, _explain("60 24 * * *"), _out("error: minute: value 60 out of range 0-59")),
        ({"error_mode": "every_field"}, _explain("60,x 24 * * *"),
         _out("error: minute: value 60 out of range 0-59", "error: hour: value 24 out of range 0-23")),
        ({"error_mode": "every_item"}, _explain("60,x 24 * * *"),
         _out("error: minute: value 60 out of range 0-59", "error: minute: invalid token 'x'",
              "error: hour: value 24 out of range 0-23")),
        ({}, _explain("0 0 * *"), _out("error: expected 5 fields, got 4")),
        ({}, _explain("*/0 0 * * *"), _out("error: minute: invalid step '0'")),
    ],
)  # fmt: skip
def test_explanations_and_errors(values, request_, expected):
    assert _run(request_, **values) == expected


BETWEEN = {"op": "between", "name": "job", "expr": "0 */12 * * *", "from": "2024-02-28T12:00", "to": "2024-03-01T00:00"}
DAILY = {"op": "daily", "name": "job", "expr": "30 8,17 * * 1-5", "from": "2024-03-01", "days": 3}


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        ({}, BETWEEN, _out("2024-02-29T00:00 Thu", "2024-02-29T12:00 Thu", "2024-03-01T00:00 Fri", "total: 3")),
        ({"range_end": "exclusive", "start_rule": "at_or_after"}, BETWEEN,
         _out("2024-02-28T12:00 Wed", "2024-02-29T00:00 Thu", "2024-02-29T12:00 Thu", "total: 3")),
        ({}, DAILY, _out("2024-03-01 Fri: 2", "2024-03-02 Sat: 0", "2024-03-03 Sun: 0", "total: 2")),
        ({"empty_days": "omit"}, DAILY, _out("2024-03-01 Fri: 2", "total: 2")),
        ({"empty_days": "none"}, DAILY, _out("2024-03-01 Fri: 2", "2024-03-02 Sat: none", "2024-03-03 Sun: none",
                                             "total: 2")),
        ({}, {"op": "clash", "name": "job", "expr": "*/20 9 * * *", "other": "*/30 9-10 * * MON", "count": 3,
              "from": "2026-03-01T00:00"}, _out("2026-03-02T09:00 Mon", "2026-03-09T09:00 Mon",
                                                "2026-03-16T09:00 Mon")),
        ({}, {**BETWEEN, "to": "2024-02-27T00:00"}, _out("error: to is before from")),
        ({}, {**BETWEEN, "to": "2024-04-01T00:00"}, _out("error: range longer than 31 days")),
        ({}, {**BETWEEN, "from": "2023-02-29T00:00"}, _out("error: from must be a timestamp (YYYY-MM-DDTHH:MM)")),
        ({}, {**DAILY, "days": 32}, _out("error: days must be an integer from 1 to 31")),
        ({}, {"op": "nxt", "expr": "* * * * *"}, "error: unknown op 'nxt'\n"),
    ],
)  # fmt: skip
def test_ranges_day_counts_and_clashes(values, request_, expected):
    assert _run(request_, **values) == expected


def test_every_sampled_request_prints_its_name():
    family = get_family(FAMILY)
    plan = plan_task(family, "train", 2, Knobs(features=len(family.features)))
    inputs = sampled_inputs(plan, 4, "samples")
    for data, answer in zip(inputs, python_outputs(plan, inputs), strict=True):
        assert answer.startswith(f"== {data['name']} ==\n") or answer.startswith("error: unknown op"), (data, answer)


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
