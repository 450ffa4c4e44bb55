"""The ``timesheet-pay`` family: the golden's house rules, real generation (the harness) and splits.

The expected reports below were worked out by hand (minutes, overtime and cents counted on paper), not copied from
the golden's output.
"""

from __future__ import annotations

import pytest
from family_blocks import check_spec
from family_properties import assert_edge_inputs_differ

from icae_env.families import Knobs, generate, get_family
from icae_env.families.harness import harness_problems
from icae_env.families.model import load_model
from icae_env.families.plan import plan_task

FAMILY = "timesheet-pay"
RATES = {"Ana": 20, "Ben": 18.5, "Cy": 15}


def _run(request: object, **values: str) -> str:
    """The golden's output with every decision at its naive default except ``values``."""
    family = get_family(FAMILY)
    plan = plan_task(family, "train", 0, Knobs(features=len(family.features)))
    for decision in family.decisions:
        plan = plan.with_value(decision.name, values.get(decision.name, decision.naive))
    return load_model(family.golden(plan, "python"))(request)


def _shift(name: str, day: int, clock_in: str, clock_out: str, pause: int | None = None) -> dict[str, object]:
    shift: dict[str, object] = {"employee": name, "date": f"2026-03-{day:02d}", "in": clock_in, "out": clock_out}
    return shift if pause is None else {**shift, "break": pause}


def _request(op: str, *shifts: dict[str, object], rates: dict[str, object] | None = None) -> dict[str, object]:
    return {"op": op, "period": "W10", "rates": RATES if rates is None else rates, "shifts": list(shifts)}


def _out(*lines: str) -> str:
    return "\n".join(["== W10 ==", *lines]) + "\n"


def test_registered():
    family = get_family(FAMILY)
    assert family.languages == ("python",)
    assert not family.held_out
    assert sum(f.core for f in family.features) == 3 and len(family.features) == 6
    check_spec(family)


# 2 March 2026 is a Monday. Long week: Monday 11 h, then four days of 7.5 h = 41 h, 3 h of them beyond 8 h a day.
LONG_WEEK = _request("pay", _shift("Ana", 2, "07:00", "18:00"),
                     *(_shift("Ana", day, "08:00", "15:30") for day in range(3, 7)))  # fmt: skip
# The same plus Saturday and Sunday: 56 h, still 3 h beyond 8 h a day.
LONGER_WEEK = _request("pay", *LONG_WEEK["shifts"], _shift("Ana", 7, "08:00", "15:30"),  # type: ignore[arg-type]
                       _shift("Ana", 8, "08:00", "15:30"))  # fmt: skip
ROUNDING = _request("hours", _shift("Ana", 2, "08:07", "16:53"))
BREAKS = _request("hours", _shift("Ana", 2, "09:00", "15:00"), _shift("Ben", 2, "09:00", "15:01"),
                  _shift("Ben", 3, "10:00", "17:00", 0))  # fmt: skip
NIGHT = _request("daily", _shift("Ana", 2, "22:00", "06:30", 30), _shift("Ben", 3, "09:00", "13:00"))
ZERO = [_shift("Ana", 2, "09:00", "17:00"), _shift("Ana", 3, "12:00", "12:00")]
DISPLAY = _request("hours", _shift("Ana", 2, "08:00", "15:30"), _shift("Ben", 2, "09:00", "17:00"))
ORDER = [_shift("Ben", 2, "09:00", "13:00"), _shift("Ana", 2, "09:00", "12:00"), _shift("Cy", 3, "08:00", "13:00")]


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        # rounding: 08:07-16:53 is 526 minutes exactly; 08:00-17:00 to the nearest quarter; 08:15-16:45 employer-side
        ({}, ROUNDING, _out("Ana: 8.77 (1 shift)", "total: 8.77")),
        ({"rounding": "quarter"}, ROUNDING, _out("Ana: 9.00 (1 shift)", "total: 9.00")),
        ({"rounding": "employer"}, ROUNDING, _out("Ana: 8.50 (1 shift)", "total: 8.50")),
        # overtime over 40 h in the period: 1 h at 20 x 1.5; over 8 h a day: 3 h; both rules: the larger, 3 h
        ({}, LONG_WEEK, _out("Ana: 830.00 (overtime 30.00)", "total: 830.00")),
        ({"overtime": "daily"}, LONG_WEEK, _out("Ana: 850.00 (overtime 90.00)", "total: 850.00")),
        ({"overtime": "daily_and_period"}, LONG_WEEK, _out("Ana: 850.00 (overtime 90.00)", "total: 850.00")),
        # 56 h: 16 h over 40 (800 + 16 x 30), or only the 3 daily hours (53 h x 20 + 90); both rules: 16 h
        ({}, LONGER_WEEK, _out("Ana: 1280.00 (overtime 480.00)", "total: 1280.00")),
        ({"overtime": "daily"}, LONGER_WEEK, _out("Ana: 1150.00 (overtime 90.00)", "total: 1150.00")),
        ({"overtime": "daily_and_period"}, LONGER_WEEK, _out("Ana: 1280.00 (overtime 480.00)", "total: 1280.00")),
        ({"multiplier": "double"}, LONG_WEEK, _out("Ana: 840.00 (overtime 40.00)", "total: 840.00")),
        # one minute at 19.50 an hour is 0.325: half a cent goes up
        ({}, _request("pay", _shift("Ana", 2, "08:00", "08:01"), rates={"Ana": 19.5}),
         _out("Ana: 0.33 (overtime 0.00)", "total: 0.33")),
        # automatic break: 6 h exactly keeps its time, 6 h 01 loses 30 minutes, a recorded 0 stays 0
        ({}, BREAKS, _out("Ana: 6.00 (1 shift)", "Ben: 13.02 (2 shifts)", "total: 19.02")),
        ({"auto_break": "after_six"}, BREAKS, _out("Ana: 6.00 (1 shift)", "Ben: 12.52 (2 shifts)", "total: 18.52")),
        # overnight: 22:00-06:30 less 30 minutes; split: 2 h before midnight less the break, 6.5 h after
        ({}, NIGHT, _out("2026-03-02: 8.00", "2026-03-03: 4.00", "total: 12.00")),
        ({"overnight": "split"}, NIGHT, _out("2026-03-02: 1.50", "2026-03-03: 10.50", "total: 12.00")),
        # a shift with clock-out equal to clock-in: nothing, an error, or a whole day
        ({}, _request("hours", *ZERO), _out("Ana: 8.00 (2 shifts)", "total: 8.00")),
        ({"zero_shift": "error"}, _request("hours", *ZERO), "error: shift 2: clock-out equals clock-in\n"),
        ({"zero_shift": "full_day"}, _request("hours", *ZERO), _out("Ana: 32.00 (2 shifts)", "total: 32.00")),
        ({}, _request("daily", *ZERO), _out("2026-03-02: 8.00", "2026-03-03: 0.00", "total: 8.00")),
        ({}, _request("check", *ZERO), _out("shift 2: no time worked", "result: 1 problem in 2 shifts")),
        ({"zero_shift": "error"}, _request("check", *ZERO),
         _out("shift 2: clock-out equals clock-in", "result: 1 problem in 2 shifts")),
        ({"zero_shift": "full_day"}, _request("check", *ZERO),
         _out("shift 2: longer than 16 hours", "result: 1 problem in 2 shifts")),
        # display: 7 h 30, 8 h, 15 h 30
        ({}, DISPLAY, _out("Ana: 7.50 (1 shift)", "Ben: 8.00 (1 shift)", "total: 15.50")),
        ({"display": "trimmed"}, DISPLAY, _out("Ana: 7.5 (1 shift)", "Ben: 8 (1 shift)", "total: 15.5")),
        ({"display": "hm"}, DISPLAY, _out("Ana: 7h30 (1 shift)", "Ben: 8h00 (1 shift)", "total: 15h30")),
        ({"display": "hm_short"}, DISPLAY, _out("Ana: 7h30 (1 shift)", "Ben: 8h (1 shift)", "total: 15h30")),
        ({"display": "trimmed"}, _request("top", _shift("Ana", 2, "09:00", "09:20")), _out("top: Ana with 0.33")),
        # the pay slip of the long week: 40 h regular and 1 h over (period), or 38 h and 3 h (daily), shown as h/min
        ({}, {**LONG_WEEK, "op": "slip", "employee": "Ana"},
         _out("slip for Ana", "regular: 800.00 for 40.00", "overtime: 30.00 for 1.00", "gross: 830.00")),
        ({"overtime": "daily", "display": "hm"}, {**LONG_WEEK, "op": "slip", "employee": "Ana"},
         _out("slip for Ana", "regular: 760.00 for 38h00", "overtime: 90.00 for 3h00", "gross: 850.00")),
        # no overtime, no overtime line: 8 h at 18.50
        ({"display": "hm_short"}, {**DISPLAY, "op": "slip", "employee": "Ben"},
         _out("slip for Ben", "regular: 148.00 for 8h", "gross: 148.00")),
        # order: Ben (4 h) first in the shifts, then Ana (3 h), then Cy (5 h)
        ({}, _request("hours", *ORDER),
         _out("Ben: 4.00 (1 shift)", "Ana: 3.00 (1 shift)", "Cy: 5.00 (1 shift)", "total: 12.00")),
        ({"order": "name"}, _request("hours", *ORDER),
         _out("Ana: 3.00 (1 shift)", "Ben: 4.00 (1 shift)", "Cy: 5.00 (1 shift)", "total: 12.00")),
        ({"order": "hours_desc"}, _request("pay", *ORDER),
         _out("Cy: 75.00 (overtime 0.00)", "Ben: 74.00 (overtime 0.00)", "Ana: 60.00 (overtime 0.00)",
              "total: 209.00")),
    ],
)  # fmt: skip
def test_decision_values_change_the_output(values, request_, expected):
    assert _run(request_, **values) == expected


def test_fixed_core_reports_and_errors():
    tie = _request("top", _shift("Ben", 2, "09:00", "17:00"), _shift("Ana", 3, "10:00", "18:00"),
                   _shift("Cy", 4, "08:00", "13:00"))  # fmt: skip
    assert _run(tie) == _out("top: Ana, Ben with 8.00")
    assert _run(_request("top")) == _out("top: none")
    checked = _request("check", _shift("Ana", 2, "09:00", "17:00"), _shift("Ana", 2, "16:00", "20:00"),
                       _shift("Dee", 2, "20:00", "13:00", 0), _shift("Ben", 3, "09:00", "10:00", 60),
                       _shift("Ben", 3, "10:00", "11:00"))  # fmt: skip
    assert _run(checked) == _out(
        "shift 2: overlaps shift 1", "shift 3: no rate for Dee", "shift 3: longer than 16 hours",
        "shift 4: no time worked", "result: 4 problems in 5 shifts",
    )  # fmt: skip
    assert _run(_request("check", _shift("Ana", 2, "09:00", "17:00"))) == _out("result: ok, 1 shift")
    assert _run(_request("pay", *ORDER, rates={"Ana": 20, "Ben": 18.5})) == "error: no rate for Cy\n"
    assert _run([1]) == "error: request must be an object\n"
    assert _run({**LONG_WEEK, "op": "slip", "employee": "Dee"}) == "error: no rate for Dee\n"
    assert _run({**LONG_WEEK, "op": "slip", "employee": "Cy"}) == "error: no shifts for Cy\n"
    assert _run({**LONG_WEEK, "op": "slip", "employee": ""}) == "error: employee must be a non-empty string\n"
    assert _run({**_request("hours"), "op": "sum"}) == "error: unknown op 'sum'\n"
    assert _run(_request("hours", rates={"Ana": 0})) == "error: rates must map names to positive numbers\n"
    assert _run(_request("hours", _shift("Ana", 2, "24:00", "08:00"))) == "error: shift 1: in is invalid\n"
    bad_break = {**_shift("Ben", 2, "09:00", "12:00"), "break": "30"}
    assert (
        _run(_request("daily", _shift("Ana", 30, "09:00", "12:00"), bad_break)) == "error: shift 2: break is invalid\n"
    )
    assert _run(_request("daily", _shift("Ana", 32, "09:00", "12:00"))) == "error: shift 1: date is invalid\n"


def test_malformed_and_boundary_inputs_carry_drawn_content():
    """No malformed or boundary input of one task repeats in another."""
    assert_edge_inputs_differ(
        plan_task(get_family(FAMILY), "train", 0, Knobs()), plan_task(get_family(FAMILY), "test", 0, Knobs()), 150
    )


@pytest.mark.slow
@pytest.mark.parametrize("index", [0, 3])
def test_real_harness(index):
    assert harness_problems(generate(FAMILY, "train", index)) == []
