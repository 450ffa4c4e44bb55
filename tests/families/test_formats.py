"""Output formats of generated tasks: the template checks catch what they must, and an honest reader recovers all.

The figures over many tasks per family and level are ``benchmarks/format_figures.py``'s; here every family's first
certified task is read at L1, L2 and L3 by the level-limited reader, and the checks are shown to fail on broken input.
"""

from __future__ import annotations

import dataclasses

import pytest
from family_properties import certified
from test_family_contract import contract

from benchmarks.format_figures import missed_templates
from icae_env.families import family_names, get_family
from icae_env.families.formats import (
    LEVELS,
    Channels,
    _matching,
    public_lines,
    template_problems,
    unreachable_share,
    used_templates,
)

FAMILY = "ledger-report"


@pytest.mark.parametrize("family", family_names())
def test_the_level_limited_reader_recovers_every_template_at_every_level(family):
    split, _ = contract(family)
    generated = certified(family, split, 0)
    chosen = get_family(family)
    assert used_templates(chosen, generated.plan, generated.task)
    for level in LEVELS:
        assert missed_templates(chosen, generated.plan, generated.task, level) == [], level
        assert generated.certificate.metrics[f"unreachable_{level}"] == 0.0


def _with(family, **changes):
    copy = object.__new__(type(family))
    copy.__dict__.update({**family.__dict__, **changes})
    return copy


def test_template_checks_fail_on_missing_duplicate_and_unstated_templates():
    family = get_family(FAMILY)
    generated = certified(FAMILY, "train", 0)
    plan, task = generated.plan, generated.task
    assert template_problems(family, plan, task) == []
    used = sorted(used_templates(family, plan, task))
    dropped = _with(family, templates=tuple(t for i, t in enumerate(family.templates) if i != used[0]))
    assert any("matches no template" in p for p in template_problems(dropped, plan, task))
    doubled = _with(family, templates=(*family.templates, family.templates[used[0]]))
    assert any("matches 2 templates" in p for p in template_problems(doubled, plan, task))
    public = {i for line in public_lines(task) for i in _matching(family, plan, line)}
    only_told = [i for i in used if i not in public][0]  # a template some text must state
    renamed = dataclasses.replace(family.templates[only_told], shown="<a text no channel has>")
    unstated = _with(family, templates=tuple(renamed if i == only_told else t for i, t in enumerate(family.templates)))
    problems = template_problems(unstated, plan, task)
    assert [p for p in problems if "is not stated" in p] == [
        f"templates: '<a text no channel has>' is not stated by any {level} channel" for level in LEVELS
    ]
    assert template_problems(_with(family, templates=()), plan, task) == [
        f"templates: family {FAMILY!r} declares no output templates"
    ]


def test_a_word_no_channel_has_is_unreachable(monkeypatch):
    generated = certified(FAMILY, "train", 0)
    assert unreachable_share(generated.task, "L1")[0] == 0.0
    monkeypatch.setattr("icae_env.families.formats.channels", lambda task, level: Channels((), ()))
    share, words = unreachable_share(generated.task, "L1")
    assert share > 0.5 and words
