"""``icae-env revision list|validate|grade``: revision tasks (Co-Design Bench style)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from icae_env.cli.common import add_kind_commands, add_sandbox_arguments, sandbox_of
from icae_env.cli.oracle import add_endpoint_arguments, endpoint_options
from icae_env.revision.grading import grade
from icae_env.revision.llm_judge import make_judge
from icae_env.revision.pack import list_revision_tasks, load_revision_task
from icae_env.revision.validate import format_validation, validate_revision_task

__all__ = ["add_revision_commands"]

_VALIDATE_HELP = "golden Strict 1.0; start keeps preservation; empty fails it"


def _cmd_list(args: argparse.Namespace) -> int:
    for name in list_revision_tasks():
        task = load_revision_task(name)
        kinds = sorted({c.check.type for c in task.criteria})
        print(f"{name:<28} {task.language:<11} {len(task.criteria):>2} criteria ({', '.join(kinds)})  {task.title}")
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    names = args.names or list_revision_tasks()
    sandbox = sandbox_of(args)
    bad = 0
    for name in names:
        result = validate_revision_task(load_revision_task(name), sandbox=sandbox)
        print(format_validation(result), flush=True)
        bad += bool(result.problems)
    rules = "golden Strict 1.0, start keeps preservation, empty fails it"
    print(f"\n{len(names) - bad}/{len(names)} revision tasks valid ({rules})")
    return 1 if bad else 0


def _cmd_grade(args: argparse.Namespace) -> int:
    task = load_revision_task(args.task)
    evidence = Path(args.evidence) if args.evidence else None
    judge = make_judge(args.judge, endpoint_options(args, "judge") or None)
    report = grade(task, Path(args.workspace), sandbox=sandbox_of(args), evidence_dir=evidence, judge=judge)
    if args.json:
        print(report.model_dump_json(indent=1))
        return 0
    for c in report.criteria:
        print(f"{c.id:<6} {c.category:<13} {c.verdict.value:<8} {c.reason}")
    scores = report.scores()
    print(f"\nStrict {scores['strict']:.2f}  Graded {scores['graded']:.2f}  Full-pass {bool(scores['full_pass'])}")
    if report.infra_failure:
        print(f"infrastructure failure: {report.infra_failure}")
    if report.evidence_dir:
        print(f"evidence: {report.evidence_dir}")
    return 0


def add_revision_commands(commands: Any) -> None:
    """Register ``revision list|validate|grade``."""
    helps = ("revision tasks (Co-Design Bench style)", "list the built-in revision tasks", _VALIDATE_HELP)
    sub = add_kind_commands(commands, "revision", helps, _cmd_list, _cmd_validate)
    grade_cmd = sub.add_parser("grade", help="grade a workspace against a revision task's criteria")
    grade_cmd.add_argument("workspace")
    grade_cmd.add_argument("--task", required=True)
    grade_cmd.add_argument("--evidence", default=None, help="directory to keep the evidence in")
    grade_cmd.add_argument("--json", action="store_true", help="print the full report as JSON")
    grade_cmd.add_argument(
        "--judge", default=None, help="judge for 'judge' criteria, e.g. llm (default: none; those stay ungraded)"
    )
    add_endpoint_arguments(grade_cmd, "judge")
    add_sandbox_arguments(grade_cmd)
    grade_cmd.set_defaults(func=_cmd_grade)
