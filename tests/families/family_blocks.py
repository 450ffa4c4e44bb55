"""Checks of a family's spec and building blocks, for the families whose goldens are composed of ``BLOCKS``.

They complement :mod:`family_properties` (real generation, certification figures, splits): ``check_spec`` checks
the shape a family's spec and golden must have, ``check_blocks`` that every value of every decision has a block that
prints its own output on a hand-made request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from icae_env.families import Family, Knobs, get_family
from icae_env.families.model import python_package
from icae_env.families.plan import plan_task


def check_spec(family: Family) -> None:
    """The shape the brief asks of a family's spec and golden."""
    core = [f for f in family.features if f.core]
    assert len(family.features) >= 4 and len(core) >= 3 and len(family.decisions) >= 7 and len(family.skins) >= 3
    assert len(family.decisions_of(tuple(f.stem for f in core))) >= 3
    for decision in family.decisions:
        keys = [v.key for v in decision.values]
        assert 2 <= len(keys) <= 4 and decision.naive in keys, decision.name
        assert len(set(decision.paraphrases)) >= 8 and not set(decision.paraphrases) & set(decision.triggers)
        assert all(v.literal is None or v.literal in v.ground for v in decision.values)
    assert len({frozenset(skin.words) for skin in family.skins}) == 1
    golden = family.golden(plan_task(family, "train", 0, Knobs()), "python")
    package = python_package(golden)
    lines = sum(text.count("\n") for text in golden.values())
    assert 150 <= lines <= 600 and sum(path.startswith(f"{package}/") for path in golden) >= 4


def check_blocks(
    name: str,
    blocks: dict[str, dict[str, str]],
    cases: dict[str, tuple[Any, dict[str, list[str]]]],
    answer: Callable[[dict[str, str], Any], str],
    render: Callable[..., str],
) -> None:
    """Every decision has a block per value, and a hand-made case on which each value prints its own lines.

    Args:
        name: The family.
        blocks: The golden's blocks, decision -> value -> source.
        cases: Decision -> (request, value -> the lines it prints); the other decisions keep their fallback blocks.
        answer: ``answer(values, request)``: the golden's output for some decision values.
        render: ``render(*lines)``: the whole output those lines make.
    """
    keys = {decision: set(values) for decision, values in blocks.items()}
    assert {d.name: {v.key for v in d.values} for d in get_family(name).decisions} == keys
    assert {decision: set(expected) for decision, (_, expected) in cases.items()} == keys
    for decision, (request, expected) in cases.items():
        printed = {value: answer({decision: value}, request) for value in expected}
        assert printed == {value: render(*lines) for value, lines in expected.items()}, decision
        assert len(set(printed.values())) == len(printed), decision
