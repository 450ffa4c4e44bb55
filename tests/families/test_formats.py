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
    Formats,
    declared_format_problems,
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
    assert used_templates(Formats.of(chosen, generated.plan), generated.task)
    for level in LEVELS:
        assert missed_templates(chosen, generated.plan, generated.task, level) == [], level
        assert generated.certificate.metrics[f"unreachable_{level}"] == 0.0


def test_template_checks_fail_on_missing_duplicate_and_unstated_templates():
    generated = certified(FAMILY, "train", 0)
    task, formats = generated.task, Formats.of(get_family(FAMILY), generated.plan)
    assert template_problems(formats, task) == [] and Formats.from_meta(task.meta) == formats
    used = sorted(used_templates(formats, task))
    dropped = dataclasses.replace(formats, templates=tuple(t for i, t in enumerate(formats.templates) if i != used[0]))
    assert any("matches no template" in p for p in template_problems(dropped, task))
    doubled = dataclasses.replace(formats, templates=(*formats.templates, formats.templates[used[0]]))
    assert any("matches 2 templates" in p for p in template_problems(doubled, task))
    public = {i for line in public_lines(task) for i in formats.matching(line)}
    told = [i for i in used if i not in public][0]  # a template that some text must state
    renamed = dataclasses.replace(formats.templates[told], shown="<a text no channel has>")
    unstated = dataclasses.replace(
        formats, templates=tuple(renamed if i == told else t for i, t in enumerate(formats.templates))
    )
    assert [p for p in template_problems(unstated, task) if "is not stated" in p] == [
        f"templates: '<a text no channel has>' is not stated by any {level} channel" for level in LEVELS
    ]
    assert template_problems(dataclasses.replace(formats, templates=()), task) == [
        "templates: no output templates are declared"
    ]


def test_a_pack_declaring_templates_gets_the_checks_and_a_word_no_channel_has_is_unreachable(monkeypatch):
    generated = certified(FAMILY, "train", 0)
    assert declared_format_problems(generated.task) == []
    assert unreachable_share(generated.task, "L1")[0] == 0.0
    monkeypatch.setattr("icae_env.families.formats.channels", lambda task, level: Channels((), ()))
    share, words = unreachable_share(generated.task, "L1")
    assert share > 0.5 and words
    assert any("is not stated by any L1 channel" in p for p in declared_format_problems(generated.task))


def test_the_figures_benchmark_refuses_bad_arguments_with_one_line(capsys):
    from benchmarks.format_figures import main

    for argv in (["--count", "0"], ["--families", "nope"], ["--agent", "-1"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
    assert "unknown families ['nope']" in capsys.readouterr().err
