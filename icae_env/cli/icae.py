"""``icae-env icae fetch|inspect|certify|export``: ICAE-Bench data roots (:mod:`icae_env.icae_bench`).

The spellings before 0.2 (``icae-env data fetch-icae``, ``icae-env tasks inspect-icae|certify-icae|export-icae``)
stay for one release and print a notice.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from icae_env.cli.common import add_sandbox_arguments, config_of, count, deprecated, sandbox_of, seconds, table
from icae_env.errors import FetchError, IcaeEnvError
from icae_env.icae_bench.certify import certify_icae
from icae_env.icae_bench.download import DownloadPolicy
from icae_env.icae_bench.export import export_icae
from icae_env.icae_bench.fetch import fetch_icae
from icae_env.icae_bench.load import load_icae_bench
from icae_env.icae_bench.manifest import ARTIFACT_NAMES, ZENODO
from icae_env.icae_bench.refs import LEVEL_DIRS
from icae_env.icae_bench.status import STATUSES, TaskStatus
from icae_env.tasks import load_task

__all__ = ["add_icae_commands", "add_old_spellings", "summary_table"]

_CERTIFY_HELP = "run each task's golden and an empty workspace in its language's sandbox; write a status file per task"
Command = Callable[[argparse.Namespace], int]


_FETCH_HELP = "download, verify and unpack ICAE-Bench's public artifacts (PRDs, test cases, goldens, Kotlin image)"


def _cmd_fetch(args: argparse.Namespace) -> int:
    policy = DownloadPolicy(timeout_s=args.timeout, retries=args.retries)
    try:
        report = fetch_icae(args.root, mirror=args.mirror, manifest=args.manifest, only=args.only, policy=policy)
    except OSError as exc:  # a data root that cannot be created or written
        raise FetchError(f"{args.root}: {exc.strerror or exc}: {exc.filename or ''}") from None
    done = ", ".join(report.installed) or "nothing new"
    print(f"{report.root}: installed {done}; {report.layout.summary() if report.layout else ''}")
    if report.complete:
        print(f"{report.root}: complete (every artifact of the manifest is installed)")
    return 0


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


def _cmd_export(args: argparse.Namespace) -> int:
    root = export_icae(load_task(args.name), args.dir, alias=args.alias)
    print(f"exported {args.name} to {root}")
    return 0


def _cmd_inspect(args: argparse.Namespace) -> int:
    root = Path(args.root)
    aliases = args.aliases or sorted(
        {p.stem for d in LEVEL_DIRS.values() for p in (root / "user_agent" / d[0]).glob("*.json")}
    )
    rows: list[tuple[object, ...]] = []
    failures = 0
    for alias in aliases:
        try:
            level = next(lv for lv, d in LEVEL_DIRS.items() if (root / "user_agent" / d[0] / f"{alias}.json").is_file())
            task = load_icae_bench(root, alias, level=level)
            counts = {lv: len(spec.hidden_constraints) for lv, spec in task.levels.items()}
            rows.append((alias, task.language, json.dumps(counts), ",".join(task.available_tiers), len(task.notes)))
            for note in task.notes if args.verbose else ():
                print(f"{alias}: {note}")
        except (IcaeEnvError, StopIteration) as exc:
            failures += 1
            rows.append((alias, "", "", "", f"ERROR {exc}"))
    print(table(("alias", "language", "records per level", "tiers", "notes"), rows))
    return 1 if failures else 0


def _add_fetch(sub: Any, name: str, func: Command) -> None:
    fetch = sub.add_parser(name, help=_FETCH_HELP)
    fetch.add_argument("--root", required=True, help="the data root to create or complete")
    fetch.add_argument("--mirror", default=None, help=f"replaces {ZENODO} (http://, https:// or file://)")
    fetch.add_argument("--manifest", default=None, help="a manifest JSON replacing the shipped one (same shape)")
    fetch.add_argument("--only", choices=ARTIFACT_NAMES, default=None, help="fetch this artifact only")
    fetch.add_argument(
        "--timeout", type=seconds, default=DownloadPolicy.timeout_s, help="socket timeout in seconds (60)"
    )
    fetch.add_argument(
        "--retries", type=count(0), default=DownloadPolicy.retries, help="retries after a transient error (4)"
    )
    fetch.set_defaults(func=func)


def _add_certify(sub: Any, name: str, func: Command) -> None:
    certify = sub.add_parser(name, help=_CERTIFY_HELP, description=_CERTIFY_HELP)
    certify.add_argument("root", help="the ICAE-Bench data root")
    certify.add_argument("aliases", nargs="*", help="tasks to certify (default: every task of the root)")
    add_sandbox_arguments(certify)
    certify.add_argument("--jobs", type=_positive, default=1, help="tasks certified at the same time (default 1)")
    certify.add_argument("--out", default=None, help="status directory (default ROOT/.certify)")
    certify.add_argument("--force", action="store_true", help="certify again tasks whose status file is current")
    certify.add_argument("--quiet", action="store_true", help="no progress bar")
    certify.set_defaults(func=func)


def _add_export(sub: Any, name: str, func: Command) -> None:
    export = sub.add_parser(name, help="write a task in the ICAE-Bench data layout")
    export.add_argument("name")
    export.add_argument("dir")
    export.add_argument("--alias", default=None)
    export.set_defaults(func=func)


def _add_inspect(sub: Any, name: str, func: Command) -> None:
    inspect = sub.add_parser(name, help="load tasks from an ICAE-Bench data root and report them")
    inspect.add_argument("root")
    inspect.add_argument("aliases", nargs="*")
    inspect.add_argument("-v", "--verbose", action="store_true", help="print every normalisation note")
    inspect.set_defaults(func=func)


def add_icae_commands(commands: Any) -> None:
    """Register ``icae fetch|inspect|certify|export`` on the top-level subparsers."""
    group = commands.add_parser("icae", help="ICAE-Bench data roots: fetch, inspect, certify, export")
    sub = group.add_subparsers(dest="icae_command", required=True)
    _add_fetch(sub, "fetch", _cmd_fetch)
    _add_inspect(sub, "inspect", _cmd_inspect)
    _add_certify(sub, "certify", _cmd_certify)
    _add_export(sub, "export", _cmd_export)


def _old(new: str, func: Command, old: str) -> Command:
    return deprecated(func, f"`icae-env {old}` is now `icae-env icae {new}`")


def add_old_spellings(tasks_sub: Any, commands: Any) -> None:
    """Register the spellings before 0.2, kept for one release.

    ``tasks export-icae|inspect-icae|certify-icae`` go on the ``tasks`` subparsers ``tasks_sub``, ``data fetch-icae``
    on the top-level ``commands``.
    """
    _add_export(tasks_sub, "export-icae", _old("export", _cmd_export, "tasks export-icae"))
    _add_inspect(tasks_sub, "inspect-icae", _old("inspect", _cmd_inspect, "tasks inspect-icae"))
    _add_certify(tasks_sub, "certify-icae", _old("certify", _cmd_certify, "tasks certify-icae"))
    group = commands.add_parser("data", help="old spelling of `icae-env icae fetch` (removed in the next release)")
    sub = group.add_subparsers(dest="data_command", required=True)
    _add_fetch(sub, "fetch-icae", _old("fetch", _cmd_fetch, "data fetch-icae"))
