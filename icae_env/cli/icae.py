"""``icae-env tasks certify-icae``: certify the tasks of an ICAE-Bench data root, print what failed and a summary."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from typing import Any

from icae_env.cli.common import add_sandbox_arguments, config_of, sandbox_of, table
from icae_env.tasks.certify_icae import certify_icae
from icae_env.tasks.certify_status import STATUSES, TaskStatus

__all__ = ["add_icae_commands", "summary_table"]

_HELP = "run each task's golden and an empty workspace in its language's sandbox; write a status file per task"


def summary_table(statuses: Sequence[TaskStatus]) -> str:
    """Counts per status (columns) and per language (rows), with a total row."""
    per_language: dict[str, Counter[str]] = {}
    for status in statuses:
        per_language.setdefault(status.language or "?", Counter())[status.status] += 1
    total: Counter[str] = sum(per_language.values(), Counter())
    rows = [
        (language, *(counts[s] for s in STATUSES), sum(counts.values()))
        for language, counts in sorted(per_language.items())
    ]
    rows.append(("all", *(total[s] for s in STATUSES), sum(total.values())))
    return table(("language", *STATUSES, "tasks"), rows)


def _problem_rows(statuses: Sequence[TaskStatus]) -> list[tuple[object, ...]]:
    return [
        (s.alias, s.language or "?", s.status, f"{s.timings.get('total_s', 0.0):.1f}", s.message[:160])
        for s in statuses
        if s.status != "ok"
    ]


def _cmd_certify(args: argparse.Namespace) -> int:
    run = certify_icae(
        args.root,
        args.aliases or None,
        sandbox=sandbox_of(args),
        jobs=args.jobs,
        out=args.out,
        force=args.force,
        limits=config_of(args).scoring.limits(),
        progress=not args.quiet,
    )
    problems = _problem_rows(run.statuses)
    if problems:
        print(table(("alias", "language", "status", "s", "detail"), problems) + "\n")
    print(summary_table(run.statuses))
    ok = sum(s.status == "ok" for s in run.statuses)
    reused = f", {len(run.reused)} unchanged since their status file" if run.reused else ""
    print(f"\n{ok}/{len(run.statuses)} tasks ok{reused}; status files in {run.out} ({run.wall_s:.1f}s)")
    return 0 if ok == len(run.statuses) else 1


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def add_icae_commands(sub: Any) -> None:
    """Register ``tasks certify-icae ROOT [ALIAS ...]`` on the ``tasks`` subparsers."""
    certify = sub.add_parser("certify-icae", help=_HELP, description=_HELP)
    certify.add_argument("root", help="the ICAE-Bench data root")
    certify.add_argument("aliases", nargs="*", help="tasks to certify (default: every task of the root)")
    add_sandbox_arguments(certify)
    certify.add_argument("--jobs", type=_positive, default=1, help="tasks certified at the same time (default 1)")
    certify.add_argument("--out", default=None, help="status directory (default ROOT/.certify)")
    certify.add_argument("--force", action="store_true", help="certify again tasks whose status file is current")
    certify.add_argument("--quiet", action="store_true", help="no progress bar")
    certify.set_defaults(func=_cmd_certify)
