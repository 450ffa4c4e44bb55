"""The ``icae-env`` command line.

Commands:
    icae-env tasks list
    icae-env tasks validate [NAME ...]           golden must score 100% on every tier, an empty workspace 0
    icae-env tasks export-icae NAME DIR [--alias A]
    icae-env tasks inspect-icae ROOT [ALIAS ...] load ICAE-Bench tasks and report tiers and normalisations
    icae-env score WORKSPACE --task NAME [--tiers public,native,enhanced] [--json]
    icae-env run --agent oracle|random [--tasks builtin] [--levels L1] [--out DIR] [--trajectories]
                 [--workers N [--ray-address ADDR] [--episode-timeout S]]
    icae-env replay TRAJECTORY.jsonl
    icae-env images build [LANG ...] [--force]   build the docker sandbox's base image without a registry
    icae-env docker reap [--all]                 remove orphaned icae-env containers (by label)
    icae-env oracle serve [--data-root DIR] [--ports 50001,50002,50003]   ICAE-compatible Oracle HTTP API
    icae-env revision list | validate [NAME ...] | grade WORKSPACE --task NAME [--evidence DIR] [--json]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from icae_env.config import RunConfig, load_config
from icae_env.errors import IcaeEnvError
from icae_env.revision.cli import add_revision_commands
from icae_env.rollout import EpisodeResult
from icae_env.runner import format_table, resolve_tasks, run_suite
from icae_env.scoring import ScoreLimits, ScoreReport, score
from icae_env.tasks import TIERS, export_icae, list_tasks, load_icae_bench, load_task
from icae_env.tasks.icae_bench import LEVEL_DIRS
from icae_env.trajectory import replay
from icae_env.user_agent.server import add_oracle_commands

__all__ = ["main"]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _cmd_list(args: argparse.Namespace) -> int:
    rows = []
    for name in list_tasks():
        task = load_task(name)
        tiers = "/".join(str(task.tests.case_count(t)) for t in TIERS)
        rows.append((name, task.language, "/".join(sorted(task.levels)), tiers, task.title))
    print(_table(("task", "language", "levels", "cases pub/nat/enh", "title"), rows))
    print(f"\n{len(rows)} tasks in {len({r[1] for r in rows})} languages")
    return 0


def _score_options(args: argparse.Namespace) -> dict[str, object]:
    config = load_config(args.config) if args.config else RunConfig()
    limits = ScoreLimits(
        case_s=config.scoring.case_timeout_s,
        first_output_s=config.scoring.first_output_s,
        tier_s=config.scoring.tier_timeout_s,
    )
    return {"sandbox": config.sandbox.backend, "sandbox_options": config.sandbox.options(), "limits": limits}


def _validate_one(name: str, options: dict[str, object]) -> tuple[tuple[object, ...], bool]:
    task = load_task(name)
    if task.golden_dir is None:
        return (name, "no golden", "", "", "", "", "", "FAIL"), False
    golden = score(task, task.golden_dir, structure=False, **options)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory(prefix="icae-empty-") as empty:
        blank = score(task, empty, structure=False, **options)  # type: ignore[arg-type]
    golden_ok = all(r.passed == r.total for r in golden.tiers.values()) and set(golden.tiers) == set(TIERS)
    blank_ok = all(r.passed == 0 for r in blank.tiers.values())
    ok = golden_ok and blank_ok
    rates = [_pct(golden.rate(t)) for t in TIERS]
    row = (name, *rates, _pct(golden.overall), _pct(blank.overall), f"{golden.duration_s:.1f}", "ok" if ok else "FAIL")
    if not golden_ok:
        for tier in golden.tiers.values():
            if tier.first_failure:
                print(f"{name} [{tier.tier}] first failure: {tier.first_failure.model_dump_json()}", file=sys.stderr)
    return row, ok


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
    print(_table(("task", "public", "native", "enhanced", "golden overall", "empty overall", "s", "status"), rows))
    print(f"\n{len(rows) - failures}/{len(rows)} tasks valid (golden 100% on every tier, empty workspace 0%)")
    return 1 if failures else 0


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
    print(_table(("alias", "language", "records per level", "tiers", "notes"), rows))
    return 1 if failures else 0


def _print_report(report: ScoreReport) -> None:
    rows = [
        (t.tier, t.passed, t.total, _pct(t.rate), t.failure_reason or "", f"{t.duration_s:.2f}")
        for t in report.tiers.values()
    ]
    print(_table(("tier", "passed", "total", "rate %", "first failure", "s"), rows))
    print(f"\nOverall (native+enhanced): {_pct(report.overall)}% ({report.hidden_passed}/{report.hidden_total})")
    if report.structure is not None:
        s = report.structure
        print(
            f"Structure: {s.files} files, {s.loc} LOC; File% {_pct(s.file_ratio)} LOC% {_pct(s.loc_ratio)} "
            f"class sim {_pct(s.class_sim)} method sim {_pct(s.method_sim)}"
        )


def _cmd_score(args: argparse.Namespace) -> int:
    task = load_task(args.task)
    tiers = [t.strip() for t in args.tiers.split(",") if t.strip()]
    report = score(task, args.workspace, tiers=tiers, **_score_options(args))  # type: ignore[arg-type]
    if args.json:
        print(report.model_dump_json(indent=2, exclude={"tiers": {"__all__": {"cases"}}}))
    else:
        _print_report(report)
    return 0


AGENTS = {"oracle": "baselines.oracle_agent:OracleAgent", "random": "baselines.random_agent:RandomAgent"}


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _cmd_run(args: argparse.Namespace) -> int:
    module, _, attr = AGENTS[args.agent].partition(":")
    policy_class = getattr(importlib.import_module(module), attr)
    out = args.out or f"runs/{args.agent}-{time.strftime('%Y%m%d-%H%M%S')}"
    config = load_config(args.config) if args.config else RunConfig()
    env_kwargs = {
        **({"budget": args.budget} if args.budget is not None else {}),
        "max_steps": args.max_steps,
        "sandbox": config.sandbox.backend,
        "sandbox_options": config.sandbox.options(),
    }
    seeds = [int(s) for s in str(args.seeds).split(",") if s.strip()]
    suite: Callable[..., list[EpisodeResult]] = run_suite
    if args.workers > 0:
        from icae_env.parallel import run_suite_parallel  # needs the ray extra

        suite = functools.partial(
            run_suite_parallel,
            workers=args.workers,
            address=args.ray_address,
            episode_timeout_s=args.episode_timeout,
        )
    elif args.episode_timeout is not None:
        print("icae-env: error: --episode-timeout needs --workers N (episodes run on Ray workers)", file=sys.stderr)
        return 2
    results = suite(
        policy_class,
        resolve_tasks(args.tasks),
        [lv.strip() for lv in args.levels.split(",")],
        seeds,
        out_dir=out,
        env_kwargs=env_kwargs,
        trajectories=args.trajectories,
        progress=not args.quiet,
    )
    print(format_table(results))
    print(f"\nresults: {out}/results.jsonl, {out}/summary.md")
    return 1 if any(r.error for r in results) else 0


def _cmd_replay(args: argparse.Namespace) -> int:
    report = replay(args.trajectory)
    print(f"replayed {report.steps} steps: {'identical' if report.ok else f'{len(report.mismatches)} mismatches'}")
    for mismatch in report.mismatches[:20]:
        print(f"  step {mismatch['step']}: {mismatch['field']} differs")
    return 0 if report.ok else 1


def _cmd_images_build(args: argparse.Namespace) -> int:
    from icae_env.sandbox.images import IMAGE_RECIPES, build_image, image_for

    names = sorted({image_for(lang) for lang in args.languages} if args.languages else set(IMAGE_RECIPES))
    for name in names:
        if name not in IMAGE_RECIPES:
            print(f"{name}: no local recipe (pull it from your registry)")
            continue
        built = build_image(name, force=args.force)
        print(f"{name}: {'built' if built else 'already present'}")
    return 0


def _cmd_docker_reap(args: argparse.Namespace) -> int:
    from icae_env.sandbox.docker import reap

    removed = reap(all_owners=args.all)
    print(f"removed {len(removed)} container(s)" + (": " + ", ".join(removed) if removed else ""))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="icae-env", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    tasks = commands.add_parser("tasks", help="list, validate, export and import tasks")
    sub = tasks.add_subparsers(dest="tasks_command", required=True)
    sub.add_parser("list", help="list the built-in tasks").set_defaults(func=_cmd_list)
    validate = sub.add_parser("validate", help="score each golden (must be 100%%) and an empty workspace (0)")
    validate.add_argument("names", nargs="*", help="task names or pack paths (default: every built-in task)")
    validate.add_argument("--config", help="run configuration YAML (see configs/default.yaml)")
    validate.set_defaults(func=_cmd_validate)
    export = sub.add_parser("export-icae", help="write a task in the ICAE-Bench data layout")
    export.add_argument("name")
    export.add_argument("dir")
    export.add_argument("--alias", default=None)
    export.set_defaults(func=_cmd_export)
    inspect = sub.add_parser("inspect-icae", help="load tasks from an ICAE-Bench data root and report them")
    inspect.add_argument("root")
    inspect.add_argument("aliases", nargs="*")
    inspect.add_argument("-v", "--verbose", action="store_true", help="print every normalisation note")
    inspect.set_defaults(func=_cmd_inspect)
    score_cmd = commands.add_parser("score", help="score a delivered repository against a task")
    score_cmd.add_argument("workspace")
    score_cmd.add_argument("--task", required=True)
    score_cmd.add_argument("--tiers", default=",".join(TIERS))
    score_cmd.add_argument("--json", action="store_true", help="print the full report as JSON")
    score_cmd.add_argument("--config", help="run configuration YAML (see configs/default.yaml)")
    score_cmd.set_defaults(func=_cmd_score)
    run = commands.add_parser("run", help="run a baseline agent over tasks and levels and print a score table")
    run.add_argument("--agent", choices=sorted(AGENTS), default="oracle")
    run.add_argument(
        "--tasks",
        default="builtin",
        help="comma-separated names or pack paths; 'builtin' = every built-in task, 'revision' = every revision task",
    )
    run.add_argument("--levels", default="L1", help="comma-separated levels (L1,L2,L3,ground)")
    run.add_argument("--seeds", default="0", help="comma-separated reset seeds")
    run.add_argument("--out", default=None, help="output directory (default runs/<agent>-<time>)")
    run.add_argument(
        "--budget", type=int, default=None, help="clarification questions per episode (default: the env's, 16 or 0)"
    )
    run.add_argument("--max-steps", type=int, default=200)
    run.add_argument("--config", help="run configuration YAML (see configs/default.yaml)")
    run.add_argument("--trajectories", action="store_true", help="record a JSONL trajectory per episode")
    run.add_argument("--quiet", action="store_true", help="no progress line")
    run.add_argument("--workers", type=int, default=0, help="run episodes on N Ray workers (0: in this process)")
    run.add_argument(
        "--ray-address",
        default=None,
        help="Ray cluster for --workers: auto, HOST:PORT or ray://HOST:PORT (default: RAY_ADDRESS or a local one)",
    )
    run.add_argument(
        "--episode-timeout",
        type=_seconds,
        default=None,
        help="with --workers: seconds an episode may run before its worker is killed (default: no limit)",
    )
    run.set_defaults(func=_cmd_run)
    replay_cmd = commands.add_parser("replay", help="re-run a recorded trajectory and compare the observations")
    replay_cmd.add_argument("trajectory")
    replay_cmd.set_defaults(func=_cmd_replay)
    images = commands.add_parser("images", help="container images for the docker sandbox")
    images_sub = images.add_subparsers(dest="images_command", required=True)
    build = images_sub.add_parser("build", help="build base images locally (debootstrap + docker import)")
    build.add_argument("languages", nargs="*", help="languages whose image to build (default: every recipe)")
    build.add_argument("--force", action="store_true", help="rebuild even when present")
    build.set_defaults(func=_cmd_images_build)
    docker_cmd = commands.add_parser("docker", help="docker sandbox maintenance")
    docker_sub = docker_cmd.add_subparsers(dest="docker_command", required=True)
    reap_cmd = docker_sub.add_parser("reap", help="remove icae-env containers whose owner process is gone")
    reap_cmd.add_argument("--all", action="store_true", help="remove every icae-env container, owners alive or not")
    reap_cmd.set_defaults(func=_cmd_docker_reap)
    add_oracle_commands(commands)
    add_revision_commands(commands)
    return parser


def _on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return args.func(args)
    except (IcaeEnvError, FileNotFoundError, ValueError) as exc:
        print(f"icae-env: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("icae-env: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
