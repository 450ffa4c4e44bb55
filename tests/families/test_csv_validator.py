"""The ``csv-validator`` family: its blocks, the fixed core, real generation (the harness) and splits."""

from __future__ import annotations

import pytest
from family_blocks import check_blocks, check_spec
from family_properties import (
    python_outputs,
    sample_keys,
    sampled_inputs,
)

from icae_env.families import Knobs, generate, get_family
from icae_env.families.golden_tree import read_blocks
from icae_env.families.harness import harness_problems
from icae_env.families.model import load_model
from icae_env.families.plan import plan_task

FAMILY = "csv-validator"
BLOCKS = {d: v for d, v in read_blocks(get_family(FAMILY).folder, "python").items() if not d.startswith("_")}
INT, BOOL, DATE = {"name": "id", "type": "int"}, {"name": "paid", "type": "bool"}, {"name": "d", "type": "date"}
CODE, ENUM = {"name": "c", "type": "regex", "pattern": "SKU-[0-9]{4}"}, {"name": "s", "type": "enum", "values": ["on"]}


def _report(values: dict[str, str], csv: str, columns: list[dict], **extra: object) -> str:
    request = {"file": "feed.csv", "csv": csv, "schema": {"columns": columns}, **extra}
    return load_model(get_family(FAMILY).sources(values))(request)


def _lines(*lines: str) -> str:
    return "\n".join(["== feed.csv ==", *lines]) + "\n"


def _bad(row: int, column: str, problem: str) -> str:
    return f"row {row}, column '{column}': {problem}"


def _ids(rows: range) -> list[str]:
    return [_bad(r, "id", "expected int, got 'x'") for r in rows]


def _summary(rows: int, errors: int) -> str:
    return f"summary: {rows} rows, {errors} errors"


def _flag(row: int, value: str) -> str:
    return _bad(row, "paid", f"expected bool, got '{value}'")


def _day(row: int, value: str) -> str:
    return _bad(row, "d", f"expected date, got '{value}'")


#: Per decision: one file ((csv, columns, request extras)), and the report lines each value prints for it.
BLOCK_CASES = {
    "row_numbers": (("id,paid\n\n1,yes\n2,maybe\n", [INT, BOOL], {}), {
        "sheet": [_flag(2, "yes"), _flag(3, "maybe"), _summary(2, 2)],
        "data": [_flag(1, "yes"), _flag(2, "maybe"), _summary(2, 2)],
        "line": [_flag(3, "yes"), _flag(4, "maybe"), _summary(2, 2)],
    }),
    "summary": (("id\nx\n", [INT], {}), {
        "fixed": [*_ids(range(2, 3)), "summary: 1 rows, 1 errors"],
        "plural": [*_ids(range(2, 3)), "summary: 1 row, 1 error"],
    }),
    "extra_columns": (("id,notes\n1,hi\n", [INT], {}), {
        "error": ["header: unexpected column 'notes'", _summary(1, 1)],
        "allowed": [_summary(1, 0)],
    }),
    "header_stop": (("id\nx\n", [INT, {"name": "who"}], {}), {
        "stop": ["header: missing column 'who'", _summary(1, 1)],
        "continue": ["header: missing column 'who'", *_ids(range(2, 3)), _summary(1, 2)],
    }),
    "booleans": (("paid\nyes\n1\non\n", [BOOL], {}), {
        "true_false": [_flag(2, "yes"), _flag(3, "1"), _flag(4, "on"), _summary(3, 3)],
        "yes_no": [_flag(4, "on"), _summary(3, 1)],
        "one_zero": [_flag(2, "yes"), _flag(4, "on"), _summary(3, 2)],
    }),
    "dates": (("d\n2024-02-29\n29/02/2024\n02/29/2024\n", [DATE], {}), {
        "iso": [_day(3, "29/02/2024"), _day(4, "02/29/2024"), _summary(3, 2)],
        "day_first": [_day(2, "2024-02-29"), _day(4, "02/29/2024"), _summary(3, 2)],
        "month_first": [_day(2, "2024-02-29"), _day(3, "29/02/2024"), _summary(3, 2)],
    }),
    "blank": (("id,m\n  , \n", [INT, {"name": "m", "required": True}], {}), {
        "empty_only": [_bad(2, "id", "expected int, got '  '"), _summary(1, 1)],
        "trimmed": [_bad(2, "m", "required value missing"), _summary(1, 1)],
    }),
    "pattern": (("c\nSKU-12345\n", [CODE], {}), {
        "full": [_bad(2, "c", "value 'SKU-12345' does not match pattern"), _summary(1, 1)],
        "contains": [_summary(1, 0)],
    }),
    "enum_case": (("s\nOn\n", [ENUM], {}), {
        "exact": [_bad(2, "s", "value 'On' not in enum"), _summary(1, 1)],
        "any_case": [_summary(1, 0)],
    }),
    "quotes": (('id,n\n1,say "hi"\nx,2\n', [INT, {"name": "n"}], {}), {
        "fatal": ["error: malformed quoting in row 2"],
        "row": ["row 2: malformed quoting", *_ids(range(3, 4)), _summary(2, 2)],
    }),
    "cap_default": (("id\n" + "x\n" * 22, [INT], {}), {
        "none": [*_ids(range(2, 24)), _summary(22, 22)],
        "ten": [*_ids(range(2, 12)), "... 12 more not shown", _summary(22, 22)],
        "twenty": [*_ids(range(2, 22)), "... 2 more not shown", _summary(22, 22)],
    }),
    "overflow": (("id\n" + "x\n" * 5, [INT], {"max_errors": 3}), {
        "note": [*_ids(range(2, 5)), "... 2 more not shown", _summary(5, 5)],
        "silent": [*_ids(range(2, 5)), _summary(5, 5)],
    }),
}  # fmt: skip


def test_each_value_of_a_decision_prints_what_it_says():
    check_blocks(FAMILY, BLOCKS, BLOCK_CASES, lambda values, file: _report(values, *file[:2], **file[2]), _lines)


def test_the_fixed_core_reads_quotes_and_reports_request_errors():
    quoted = 'id,n\r\n1,"a, ""b""\nc"\n"2",\n'
    assert _report({}, quoted, [INT, {"name": "n", "required": True}]) == _lines(
        _bad(3, "n", "required value missing"), _summary(2, 1)
    )
    assert _report({"quotes": "row"}, 'id,n\n1,"open\nx,2\n', [INT, {"name": "n"}]) == _lines(
        "row 2: unterminated quote", "summary: 1 rows, 1 errors"
    )
    assert _report({}, '"id,x\n', [INT]) == _lines("error: unterminated quote in the header")
    assert _report({}, "\n\n", [INT]) == _lines("error: missing header")
    assert _report({}, "id\n", [{"name": "id", "type": "number"}]) == _lines("error: invalid schema")
    assert _report({}, "id\n", [INT], max_errors=True) == _lines("error: invalid max_errors")
    below = _lines(_bad(2, "id", "value '5' below min 6"), _summary(1, 1))
    assert _report({}, "id\n5\n", [dict(INT, min=6)]) == below
    assert load_model(get_family(FAMILY).sources({}))([1, 2]) == "error: input must be an object\n"


def test_the_spec_follows_the_family_rules():
    family = get_family(FAMILY)
    assert family.languages == ("python",)
    assert not family.held_out
    check_spec(family)


def test_every_sampled_request_names_its_file_in_the_report():
    plan = plan_task(get_family(FAMILY), "train", 3, Knobs(features=len(get_family(FAMILY).features)))
    inputs = sampled_inputs(plan, 5, "samples")
    for data, answer in zip(inputs, python_outputs(plan, inputs), strict=True):
        assert answer.startswith(f"== {data['file']} ==\n"), (data, answer)


def test_malformed_inputs_carry_drawn_content():
    """No malformed or boundary input of one task repeats in another (each carries a drawn file and drawn rows)."""
    family = get_family(FAMILY)
    left = plan_task(family, "train", 0, Knobs(features=len(family.features)))
    right = plan_task(family, "test", 0, Knobs(features=len(family.features)))
    kinds = ("malformed", "boundary")
    assert not sample_keys(left, kinds, 150, "left") & sample_keys(right, kinds, 150, "right")


@pytest.mark.slow
@pytest.mark.parametrize(("split", "index"), [("train", 1), ("test", 0)])
def test_real_harness(split, index):
    """Golden 100% on every tier, empty workspace 0%, through the real harness."""
    assert harness_problems(generate(FAMILY, split, index)) == []
