"""The ``--check`` code path of ``benchmarks/family_figures.py`` on a few tasks, and its per-task detectors.

The check itself (rejection share, mean paraphrase reach and median naive Overall over 30 + 15 tasks of every family)
asserts aggregate rates, so it is the benchmark's (exit status 1 out of a bound; the last figures are in
``docs/experiments.md``). Here it runs on two tasks of a family with both splits and two of a held-out family (tasks
the family contract certifies anyway), checking the table it prints and that a bound no batch can meet fails the run.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from family_properties import certified

from benchmarks import family_figures
from icae_env.families.certify import CERTIFY_ROUTERS

SPLIT_FAMILY, HELD_OUT_FAMILY = "timesheet-pay", "log-summary"
ARGV = ["--check", "--families", f"{SPLIT_FAMILY},{HELD_OUT_FAMILY}", "--train", "1", "--test", "1"]
#: The figures checked on every batch, in the order printed.
FIGURES = [
    "rejected share",
    "certificates not ok",
    "min ablation fails",
    *(f"paraphrase top-3 mean ({router})" for router in CERTIFY_ROUTERS),
    "naive Overall median",
    "naive Overall max",
    "tells revealed",
]


ROW = re.compile(r"(\S+) +(\S+) +(.+?) +(\S+) +(<|<=|>=|==) (\S+)  (ok|BELOW|ABOVE)")


def _run(argv: list[str]) -> tuple[int, list[str], list[tuple[str, ...]]]:
    """The exit status, the printed lines and the rows: (family, batch, figure, value, relation, bound, verdict)."""
    lines: list[str] = []
    code = family_figures.main(argv, out=lines.append)
    return code, lines, [match.groups() for line in lines if (match := ROW.fullmatch(line))]


def _figure(row: tuple[str, ...]) -> str:
    """The row's figure, without the counts the rejected share names."""
    return row[2].split(" (")[0] if row[2].startswith("rejected share") else row[2]


def test_the_check_prints_every_bound_of_each_batch():
    code, lines, rows = _run(ARGV)
    assert lines[0].split() == ["family", "batch", "figure", "value", "bound", "ok"]
    assert [(row[0], row[1], _figure(row)) for row in rows] == [
        *((SPLIT_FAMILY, "train", figure) for figure in FIGURES),
        *((SPLIT_FAMILY, "test", figure) for figure in FIGURES),
        (SPLIT_FAMILY, "train/test", "hidden cases shared"),
        *((HELD_OUT_FAMILY, "test", figure) for figure in FIGURES),
        (HELD_OUT_FAMILY, "test/test", "hidden cases shared"),
    ]
    # what holds for every task holds on one: none rejected, every certificate ok, no tell, no hidden case shared
    assert [row[2] for row in rows if row[2].startswith("rejected share")] == ["rejected share (0/1)"] * 3
    per_task = {"rejected share", "certificates not ok", "min ablation fails", "naive Overall max", "tells revealed"}
    assert all(row[-1] == "ok" for row in rows if _figure(row) in per_task | {"hidden cases shared"})
    assert [row[3] for row in rows if _figure(row) in {"certificates not ok", "tells revealed"}] == ["0"] * 6
    assert code == (0 if all(row[-1] == "ok" for row in rows) else 1)
    assert f"{SPLIT_FAMILY} train: 1 certified (0 re-planned), 0 rejected" in "\n".join(lines)
    assert lines[-1] == f"{sum(row[-1] == 'ok' for row in rows)}/{len(rows)} figures within their bounds"


def test_a_bound_out_of_reach_fails_the_check(monkeypatch):
    lenient = {"MAX_REJECTED": 1.0, "MIN_PARAPHRASE_TOP3": 0.0, "MIN_OTHER_ROUTER_TOP3": 0.0, "MAX_NAIVE_MEDIAN": 1.0}
    for name, value in lenient.items():
        monkeypatch.setattr(family_figures, name, value)
    code, lines, rows = _run(ARGV)
    assert code == 0 and rows and all(row[-1] == "ok" for row in rows)
    monkeypatch.setattr(family_figures, "MIN_PARAPHRASE_TOP3", 1.01)
    code, lines, rows = _run(ARGV)
    failed = [(row[0], row[1], row[2], row[4], row[5], row[6]) for row in rows if row[-1] != "ok"]
    figure = f"paraphrase top-3 mean ({CERTIFY_ROUTERS[0]})"
    assert code == 1 and failed == [
        (SPLIT_FAMILY, "train", figure, ">=", "1.01", "BELOW"),
        (SPLIT_FAMILY, "test", figure, ">=", "1.01", "BELOW"),
        (HELD_OUT_FAMILY, "test", figure, ">=", "1.01", "BELOW"),
    ]
    assert lines[-1] == f"{len(rows) - 3}/{len(rows)} figures within their bounds"


def test_the_detectors_find_a_shared_case_and_a_revealed_tell():
    """The contract's per-task checks ask these: a copy of a task under another name shares all its hidden cases."""
    generated = certified(SPLIT_FAMILY, "train", 0)
    cases = family_figures.hidden_cases(generated)
    assert cases and family_figures.shared_cases([generated], [generated]) == []
    twin = dataclasses.replace(generated, plan=dataclasses.replace(generated.plan, index=10**6))
    shared = family_figures.shared_cases([generated], [twin])
    assert shared == [(twin.plan.name, case) for case in sorted(cases)]
    assert family_figures.revealed_tells(generated) == []
    plan = generated.plan
    name = plan.hidden[0]
    tell = family_figures.get_family(plan.family).decision(name).value(plan.values[name]).tells[0]
    needle = tell.format(**plan.skin.words)
    leaky = dataclasses.replace(generated, files={**generated.files, "cases/public/leak.json": f'["{needle}"]'})
    assert family_figures.revealed_tells(leaky) == [f"{name}: {needle.lower()}"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--check", "--families", "no-such-family"], "unknown families ['no-such-family']"),
        (["--check", "--train", "0"], "--train must be >= 1"),
    ],
)
def test_the_benchmark_refuses_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exited:
        family_figures.main(argv)
    assert exited.value.code == 2 and message in capsys.readouterr().err
