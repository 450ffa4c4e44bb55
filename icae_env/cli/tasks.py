"""``icae-env tasks list|validate|generate|families`` and ``icae-env score``."""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any

from icae_env.cli.common import add_kind_commands, add_sandbox_arguments, config_of, pct, sandbox_of, table
from icae_env.cli.generate import add_generation_commands
from icae_env.errors import IcaeEnvError
from icae_env.scoring import ScoreReport, score
from icae_env.tasks import TIERS, list_tasks, load_task
from icae_env.tasks.golden import golden_workspace

__all__ = ["add_score_command", "add_tasks_commands"]

_VALIDATE_HELP = "score each golden (must be 100%%) and an empty workspace (0)"


def _cmd_list(args: argparse.Namespace) -> int:
    rows = []
    for name in list_tasks():
        task = load_task(name)
        tiers = "/".join(str(task.tests.case_count(t)) for t in TIERS)
        rows.append((name, task.language, "/".join(sorted(task.levels)), tiers, task.title))
    print(table(("task", "language", "levels", "cases pub/nat/enh", "title"), rows))
    print(f"\n{len(rows)} tasks in {len({r[1] for r in rows})} languages")
    return 0


def _score_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"sandbox": sandbox_of(args), "limits": config_of(args).scoring.limits()}


def _validate_one(name: str, options: dict[str, Any]) -> tuple[tuple[object, ...], bool]:
    task = load_task(name)
    with golden_workspace(task) as golden_dir:
        if golden_dir is None:
            return (name, "no golden", "", "", "", "", "", "FAIL"), False
        golden = score(task, golden_dir, structure=False, **options)
    with tempfile.TemporaryDirectory(prefix="icae-empty-") as empty:
        blank = score(task, empty, structure=False, **options)
    golden_ok = all(r.passed == r.total for r in golden.tiers.values()) and set(golden.tiers) == set(TIERS)
    blank_ok = all(r.passed == 0 for r in blank.tiers.values())
    declared = _declared(task, options)
    ok = golden_ok and blank_ok and not declared
    rates = [pct(golden.rate(t)) for t in TIERS]
    row = (name, *rates, pct(golden.overall), pct(blank.overall), f"{golden.duration_s:.1f}", "ok" if ok else "FAIL")
    if not golden_ok:
        for tier in golden.tiers.values():
            if tier.first_failure:
                print(f"{name} [{tier.tier}] first failure: {tier.first_failure.model_dump_json()}", file=sys.stderr)
    return row, ok


def _declared(task: Any, options: dict[str, Any]) -> list[str]:
    """The checks a pack declares (output templates; a generated pack: its family's certification), to stderr."""
    from icae_env.families.formats import declared_format_problems

    if not task.meta.get("family"):
        problems = declared_format_problems(task)
    else:  # its family's certificate holds the format checks
        from icae_env.families.harness import declared_problems

        problems = declared_problems(task, options["sandbox"])
    for problem in problems:
        print(f"{task.id}: {problem}", file=sys.stderr)
    return problems


def _cmd_validate(args: argparse.Namespace) -> int:
    names = args.names or list_tasks()
    options = _score_options(args)
    rows, failures = [], 0
    for name in names:
        try:
            row, ok = _validate_one(name, options)
        except IcaeEnvError as exc:
            row, ok = (name, "", "", "", "", "", "", f"FAIL: {exc}"), False
        rows.append(row)
        failures += not ok
    print(table(("task", "public", "native", "enhanced", "golden overall", "empty overall", "s", "status"), rows))
    print(f"\n{len(rows) - failures}/{len(rows)} tasks valid (golden 100% on every tier, empty workspace 0%)")
    return 1 if failures else 0


def _print_report(report: ScoreReport) -> None:
    rows = [
        (t.tier, t.passed, t.total, pct(t.rate), t.failure_reason or "", f"{t.duration_s:.2f}")
        for t in report.tiers.values()
    ]
    print(table(("tier", "passed", "total", "rate %", "first failure", "s"), rows))
    print(f"\nOverall (native+enhanced): {pct(report.overall)}% ({report.hidden_passed}/{report.hidden_total})")
    if report.structure is not None:
        s = report.structure
        print(
            f"Structure: {s.files} files, {s.loc} LOC; File% {pct(s.file_ratio)} LOC% {pct(s.loc_ratio)} "
            f"class sim {pct(s.class_sim)} method sim {pct(s.method_sim)}"
        )


def _cmd_score(args: argparse.Namespace) -> int:
    task = load_task(args.task)
    tiers = [t.strip() for t in args.tiers.split(",") if t.strip()]
    report = score(task, args.workspace, tiers=tiers, **_score_options(args))
    if args.json:
        print(report.model_dump_json(indent=2, exclude={"tiers": {"__all__": {"cases"}}}))
    else:
        _print_report(report)
    return 0


def add_tasks_commands(commands: Any) -> Any:
    """Register ``tasks list|validate|generate|families``; return the ``tasks`` subparsers."""
    helps = ("list, validate and generate tasks", "list the built-in tasks", _VALIDATE_HELP)
    sub = add_kind_commands(commands, "tasks", helps, _cmd_list, _cmd_validate)
    add_generation_commands(sub)
    return sub


def add_score_command(commands: Any) -> None:
    """Register ``score WORKSPACE --task NAME``."""
    score_cmd = commands.add_parser("score", help="score a delivered repository against a task")
    score_cmd.add_argument("workspace")
    score_cmd.add_argument("--task", required=True)
    score_cmd.add_argument("--tiers", default=",".join(TIERS))
    score_cmd.add_argument("--json", action="store_true", help="print the full report as JSON")
    add_sandbox_arguments(score_cmd)
    score_cmd.set_defaults(func=_cmd_score)
