"""The ``config-checker`` family: its blocks, the fixed core, real generation (the harness) and splits."""

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

FAMILY = "config-checker"
BLOCKS = {d: v for d, v in read_blocks(get_family(FAMILY).folder, "python").items() if not d.startswith("_")}
TYPED = "[s]\na = yes\nb = 1\nc = TRUE\nz = 007\nl = x, y\nm = [p, q]\n"
E004 = "error: app.ini: line 4: E004 duplicate key 's.a' (first on line 2)"


def _answer(values: dict[str, str], request: dict[str, object]) -> str:
    return load_model(get_family(FAMILY).sources(values))({"file": "app.ini", **request})


def _lines(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def _lint(*problems: str) -> list[str]:
    count = f"{len(problems)} problem found" if len(problems) == 1 else f"{len(problems)} problems found"
    return [*(f"app.ini:{p}" for p in problems), f"app.ini: {count}"]


#: Per decision: one request, and the output lines each value prints for it.
BLOCK_CASES = {
    "duplicates": ({"action": "dump", "text": "[s]\na = 1\nb = 2\na = 3\n"}, {
        "last": ["# app.ini", "[s]", "a = 3", "b = 2"],
        "first": ["# app.ini", "[s]", "a = 1", "b = 2"],
        "error": [E004],
    }),
    "key_case": ({"action": "lint", "text": "A = 1\n[s]\nX = 1\nx = 2\n"}, {
        "fold": _lint("1: E002 key outside section: 'a'", "4: E004 duplicate key 's.x' (first on line 3)"),
        "keep": _lint("1: E002 key outside section: 'A'"),
    }),
    "inline_comments": ({"action": "dump", "text": "[s] # main\na = 1 # one\nu = h/#x\n"}, {
        "spaced": ["# app.ini", "[s]", "a = 1", "u = h/#x"],
        "none": ["error: app.ini: line 1: E003 bad section header"],
    }),
    "continuation": ({"action": "get", "text": "[s]\na = x\n  b = y\n", "key": "s.a"}, {
        "indent": ["x b = y"],
        "none": ["x"],
    }),
    "booleans": ({"action": "types", "text": "[s]\na = yes\nb = 1\nc = TRUE\n"}, {
        "words": ["# app.ini", "s.a bool true", "s.b int 1", "s.c bool true"],
        "strict": ["# app.ini", 's.a str "yes"', "s.b int 1", "s.c bool true"],
        "numeric": ["# app.ini", 's.a str "yes"', "s.b bool true", "s.c bool true"],
    }),
    "leading_zeros": ({"action": "get", "text": TYPED, "key": "s.z", "as": "int"}, {
        "number": ["7"],
        "text": ["error: app.ini: cannot convert to int: s.z"],
    }),
    "list_syntax": ({"action": "types", "text": "[s]\nl = x, y\nm = [p, q]\n"}, {
        "comma": ["# app.ini", 's.l list ["x", "y"]', 's.m list ["[p", "q]"]'],
        "brackets": ["# app.ini", 's.l str "x, y"', 's.m list ["p", "q"]'],
    }),
    "lint_order": ({"action": "lint", "text": "[s]\njunk\n2x = 1\nmore\n"}, {
        "by_line": _lint("2: E001 missing '='", "3: E005 invalid key name: '2x'", "4: E001 missing '='"),
        "by_code": _lint("2: E001 missing '='", "4: E001 missing '='", "3: E005 invalid key name: '2x'"),
    }),
    "dump_order": ({"action": "dump", "text": "[b]\ny = 1\nx = 2\n[a]\n"}, {
        "first_seen": ["# app.ini", "[b]", "y = 1", "x = 2", "", "[a]"],
        "sorted": ["# app.ini", "[a]", "", "[b]", "x = 2", "y = 1"],
    }),
    "missing_key": ({"action": "get", "text": "[s]\na = 1\n", "key": "s.nope"}, {
        "error": ["error: app.ini: key not found: s.nope"],
        "empty": [""],
    }),
    "env_names": ({"action": "env", "text": "[db-main]\nhost = h\n", "prefix": "APP"}, {
        "single": ["# app.ini", "APP_DB_MAIN_HOST=h"],
        "double": ["# app.ini", "APP__DB_MAIN__HOST=h"],
    }),
    "env_quotes": ({"action": "env", "text": "[db]\npass = it's x\nhost = h\n"}, {
        "never": ["# app.ini", "DB_PASS=it's x", "DB_HOST=h"],
        "always": ["# app.ini", "DB_PASS='it'\\''s x'", "DB_HOST='h'"],
        "needed": ["# app.ini", "DB_PASS='it'\\''s x'", "DB_HOST=h"],
    }),
}  # fmt: skip


def test_each_value_of_a_decision_prints_what_it_says():
    check_blocks(FAMILY, BLOCKS, BLOCK_CASES, _answer, _lines)


def test_values_combine_in_one_lookup():
    request = {"action": "get", "text": TYPED, "key": "s.A", "as": "bool"}
    assert _answer({"key_case": "fold", "booleans": "words"}, request) == _lines("true")
    assert _answer({"key_case": "keep", "missing_key": "empty"}, dict(request, default="d")) == _lines("d")
    assert _answer({"list_syntax": "brackets"}, {"action": "get", "text": TYPED, "key": "s.l", "as": "list"}) == _lines(
        '["x, y"]'
    )
    assert _answer({"duplicates": "error"}, {"action": "lint", "text": "[s]\na = 1\na = 2\n"}) == _lines(
        *_lint("3: E004 duplicate key 's.a' (first on line 2)")
    )


def test_the_fixed_core_checks_requests_headers_and_keys():
    assert _answer({}, {"action": "show", "text": ""}) == _lines("error: app.ini: unknown action")
    assert _answer({}, {"action": "get", "text": "[s]\n", "key": 5}) == _lines("error: app.ini: missing key")
    assert _answer({}, {"action": "get", "text": "[s]\n", "key": "s.a", "as": "float"}) == _lines(
        "error: app.ini: bad type"
    )
    assert _answer({}, {"action": "get", "text": "[s]\na = 1\n", "key": "a"}) == _lines(
        "error: app.ini: bad key path: a"
    )
    assert _answer({}, {"action": "env", "text": "[s]\n", "prefix": "9x"}) == _lines("error: app.ini: bad prefix")
    lint = {"action": "lint", "text": "[ ok ]\n[a.b]\nx\n[]\nk.v = 1\n"}
    assert _answer({}, lint) == _lines(*_lint("2: E003 bad section header", "4: E003 bad section header"))
    assert _answer({}, {"action": "lint", "text": "\r\n; note\n"}) == _lines("app.ini: OK")
    quoted = _lines("# app.ini", 's.e str ""', 's.q str "say \\"hi\\" \\\\ x"')
    assert _answer({}, {"action": "types", "text": '[s]\ne =\nq = say "hi" \\ x\n'}) == quoted
    assert load_model(get_family(FAMILY).sources({}))("dump") == "error: input must be an object\n"


def test_the_spec_follows_the_family_rules():
    family = get_family(FAMILY)
    assert family.languages == ("python",)
    assert not family.held_out
    check_spec(family)


def test_every_sampled_request_names_its_file_or_answers_a_lookup():
    plan = plan_task(get_family(FAMILY), "train", 3, Knobs(features=len(get_family(FAMILY).features)))
    inputs = sampled_inputs(plan, 5, "samples")
    for data, answer in zip(inputs, python_outputs(plan, inputs), strict=True):
        assert data["file"] in answer or data["action"] == "get", (data, answer)


def test_malformed_inputs_carry_drawn_content():
    """No malformed or boundary input of one task repeats in another (a request without its text
    once named only a drawn file)."""
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
