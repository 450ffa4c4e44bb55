"""``icae-env run``, ``replay`` and ``docker reap``.

``icae-env run --agent llm`` runs the LLM baseline (:mod:`icae_env.baselines.llm_agent`) against an
OpenAI-compatible endpoint: ``--base-url``, ``--model`` and the other options of its group.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields, replace
from typing import Any

from icae_env.baselines import llm_agent
from icae_env.cli.common import add_sandbox_arguments, config_of, sandbox_of, seconds
from icae_env.cli.oracle import add_endpoint_arguments, endpoint_options
from icae_env.errors import ConfigError
from icae_env.registration import AGENTS, resolve
from icae_env.run import format_table, replay, resolve_tasks, run_suite
from icae_env.run.args import SuiteArgs, add_arguments
from icae_env.run.suite import env_id_for

#: Options of ``llm_agent.Args`` that ``icae-env run`` spells its own way (or not at all: progress is --quiet).
_LLM_SHARED = (*(f.name for f in fields(SuiteArgs)), "budget", "max_steps", "progress")
_DEFAULT_MAX_STEPS = 200

__all__ = ["add_run_commands"]


def _user_agent_kwargs(args: argparse.Namespace, tasks: list[str]) -> dict[str, Any]:
    """The router (and, for revision tasks, judge) arguments of ``make``: the configuration's, then the flags."""
    revision = env_id_for(tasks) == "icae/Revision-v0"
    kwargs = config_of(args).env_kwargs(revision=revision)
    if args.router is not None and args.router != kwargs["router"]:
        kwargs.update(router=args.router, router_options={})
    kwargs["router_options"] = {**kwargs["router_options"], **endpoint_options(args, "router")} or None
    if revision:
        if args.judge is not None and args.judge != kwargs["judge"]:
            kwargs.update(judge=args.judge, judge_options=None)
        kwargs["judge_options"] = {**(kwargs["judge_options"] or {}), **endpoint_options(args, "judge")} or None
    elif args.judge is not None or endpoint_options(args, "judge"):
        raise ConfigError("--judge and its options apply to revision tasks only")
    return kwargs


def _cmd_run(args: argparse.Namespace) -> int:
    if args.episode_timeout is not None and args.workers <= 0:
        print("icae-env: error: --episode-timeout needs --workers N (episodes run on Ray workers)", file=sys.stderr)
        return 2
    policy_class = resolve("agent", args.agent)
    out = args.out or f"runs/{args.agent}-{time.strftime('%Y%m%d-%H%M%S')}"
    tasks = resolve_tasks(args.tasks, certified=False if args.certified is None else args.certified)
    user_agent = _user_agent_kwargs(args, tasks)
    if args.agent == "llm":
        return _run_llm(args, out, tasks, user_agent)
    env_kwargs: dict[str, Any] = {"max_steps": args.max_steps or _DEFAULT_MAX_STEPS, "sandbox": sandbox_of(args)}
    env_kwargs.update(user_agent)
    if args.budget is not None:
        env_kwargs["budget"] = args.budget
    results = run_suite(
        policy_class,
        tasks,
        [lv.strip() for lv in args.levels.split(",")],
        [int(s) for s in str(args.seeds).split(",") if s.strip()],
        out_dir=out,
        env_kwargs=env_kwargs,
        trajectories=args.trajectories,
        progress=not args.quiet,
        workers=args.workers,
        address=args.ray_address,
        episode_timeout_s=args.episode_timeout,
    )
    print(format_table(results))
    print(f"\nresults: {out}/results.jsonl, {out}/summary.md")
    return 1 if any(r.error for r in results) else 0


def _run_llm(args: argparse.Namespace, out: str, tasks: list[str], user_agent: dict[str, Any]) -> int:
    """``--agent llm``: the LLM baseline, episode after episode in this process (exit status as its own)."""
    if args.workers:
        print("icae-env: error: --agent llm runs in this process; drop --workers", file=sys.stderr)
        return 2
    options = {f.name: getattr(args, f.name) for f in fields(llm_agent.Args) if f.name not in _LLM_SHARED}
    llm_args = replace(llm_agent.Args(), **options, levels=args.levels, out=out, progress=not args.quiet)
    if args.max_steps is not None:
        llm_args.max_steps = args.max_steps
    if args.budget is not None:
        llm_args.budget = args.budget
    seeds = [int(s) for s in str(args.seeds).split(",") if s.strip()]
    status = llm_agent.run(llm_args, tasks=tasks, seeds=seeds, env_kwargs={"sandbox": sandbox_of(args), **user_agent})
    print(f"\nresults: {out}/results.jsonl, {out}/summary.md, {out}/transcripts/")
    return status


def _cmd_replay(args: argparse.Namespace) -> int:
    report = replay(args.trajectory)
    print(f"replayed {report.steps} steps: {'identical' if report.ok else f'{len(report.mismatches)} mismatches'}")
    for mismatch in report.mismatches[:20]:
        print(f"  step {mismatch['step']}: {mismatch['field']} differs")
    return 0 if report.ok else 1


def _cmd_docker_reap(args: argparse.Namespace) -> int:
    from icae_env.sandbox.docker import reap

    removed = reap(all_owners=args.all)
    print(f"removed {len(removed)} container(s)" + (": " + ", ".join(removed) if removed else ""))
    return 0


def _add_run(commands: Any) -> None:
    run = commands.add_parser("run", help="run a baseline agent over tasks and levels and print a score table")
    run.add_argument("--agent", choices=sorted(AGENTS), default="oracle")
    run.add_argument(
        "--tasks",
        default="builtin",
        help="comma-separated names or pack paths; 'builtin' = every built-in task, 'revision' = every revision task, "
        "'icae:ROOT' = every task of an ICAE-Bench data root ('icae:ROOT#ALIAS' one of them)",
    )
    run.add_argument(
        "--certified",
        nargs="?",
        const=True,
        default=None,
        metavar="DIR",
        help="keep only ICAE tasks certified ok by 'icae-env icae certify' (status files in DIR, "
        "default ROOT/.certify)",
    )
    run.add_argument("--levels", default="L1", help="comma-separated levels (L1,L2,L3,ground)")
    run.add_argument("--seeds", default="0", help="comma-separated reset seeds")
    run.add_argument("--out", default=None, help="output directory (default runs/<agent>-<time>)")
    run.add_argument(
        "--budget", type=int, default=None, help="clarification questions per episode (default: the env's, 16 or 0)"
    )
    run.add_argument(
        "--max-steps",
        type=int,
        default=None,
        help=f"steps before an episode is truncated and scored (default: {_DEFAULT_MAX_STEPS}; "
        f"{llm_agent.Args.max_steps} for --agent llm)",
    )
    add_sandbox_arguments(run)
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
        type=seconds,
        default=None,
        help="with --workers: seconds an episode may run before its worker is killed (default: no limit)",
    )
    run.add_argument("--router", default=None, help="User Agent router (default: the configuration's, cascade)")
    add_endpoint_arguments(run, "router")
    run.add_argument("--judge", default=None, help="judge of revision tasks' judge criteria, e.g. llm (default: none)")
    add_endpoint_arguments(run, "judge")
    llm = run.add_argument_group("--agent llm", "the LLM baseline's endpoint, model and context")
    add_arguments(llm, llm_agent.Args, skip=_LLM_SHARED)
    run.set_defaults(func=_cmd_run)


def add_run_commands(commands: Any) -> None:
    """Register ``run``, ``replay`` and ``docker reap``."""
    _add_run(commands)
    replay_cmd = commands.add_parser("replay", help="re-run a recorded trajectory and compare the observations")
    replay_cmd.add_argument("trajectory")
    replay_cmd.set_defaults(func=_cmd_replay)
    docker_cmd = commands.add_parser("docker", help="docker sandbox maintenance")
    docker_sub = docker_cmd.add_subparsers(dest="docker_command", required=True)
    reap_cmd = docker_sub.add_parser("reap", help="remove icae-env containers whose owner process is gone")
    reap_cmd.add_argument("--all", action="store_true", help="remove every icae-env container, owners alive or not")
    reap_cmd.set_defaults(func=_cmd_docker_reap)
