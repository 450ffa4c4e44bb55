"""Run a policy over many tasks, levels and seeds: in this process, or on Ray workers as a mode of the same run.

:func:`run_suite` returns the results; :func:`rollout` (Ray) returns the whole :class:`RolloutReport` with the
infrastructure errors. Both write through one :class:`~icae_env.run.records.ResultSink`: ``results.jsonl`` grows
as episodes finish (an interrupted run keeps everything finished so far), then ``summary.md``; trajectories go to
``trajectories/<task>-<level>-<seed>.jsonl``. The environment is the one registered for the tasks' kind
(:func:`env_id_for`) unless ``env_id`` names another.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import icae_env
from icae_env.errors import ArgumentError
from icae_env.icae_bench.refs import icae_aliases, icae_ref, is_icae_ref, parse_icae_ref
from icae_env.icae_bench.status import certified_aliases
from icae_env.kinds import kind_for, make_kind
from icae_env.registration import kind_entries, kind_entry, runtime_rows
from icae_env.run.episode import AnyPolicy, EpisodeResult, run_episode
from icae_env.run.records import EpisodeJob, ResultSink, RolloutReport, make_jobs

__all__ = ["env_id_for", "resolve_tasks", "rollout", "run_suite"]


def _icae_tasks(part: str, certified: bool | str | Path) -> list[str]:
    """The ``icae:<root>#<alias>`` references of an ``icae:`` part (a whole root expanded), certified ones only."""
    name, alias, level = parse_icae_ref(part)
    root = Path(name).expanduser().resolve()
    aliases = [alias] if alias else icae_aliases(root)
    if certified is not False:
        aliases = certified_aliases(root, None if certified is True else certified, aliases)
    return [icae_ref(root, a, level) for a in aliases]


def resolve_tasks(spec: str, certified: bool | str | Path = False) -> list[str]:
    """Expand a comma-separated task list.

    A kind's suite word (``builtin``, ``revision``) is its every task; ``icae:<root>`` is every task of an
    ICAE-Bench data root (as ``icae:<root>#<alias>`` references, the root made absolute); other names and paths
    stay as they are.

    Args:
        spec: The task list.
        certified: Keep only the ICAE tasks whose certification status (``icae-env icae certify``) is a
            current ``ok``: True reads ``<root>/.certify``, a path names the status directory. Other tasks are
            kept as they are.

    Raises:
        ArgumentError: when nothing is selected.
    """
    suites = {entry.suite: entry.name for entry in kind_entries() if entry.suite}
    names: list[str] = []
    for part in (p.strip() for p in spec.split(",")):
        if part in suites:
            names.extend(make_kind(suites[part]).list_tasks())
        elif is_icae_ref(part):
            names.extend(_icae_tasks(part, certified))
        elif part:
            names.append(part)
    if not names:
        hint = " (no certified task: run icae-env icae certify ROOT first)" if certified is not False else ""
        raise ArgumentError(f"no tasks selected by {spec!r}{hint}")
    return names


def env_id_for(tasks: Sequence[str]) -> str:
    """Return the id of the env that runs ``tasks``: the one registered for their task kind.

    Raises:
        ArgumentError: when the tasks are of different kinds.
    """
    kinds = list(dict.fromkeys(kind_for(t).name for t in tasks)) or [kind_entries()[-1].name]
    if len(kinds) > 1:
        raise ArgumentError(f"{' and '.join(kinds)} tasks cannot run in one suite; run them separately")
    return kind_entry(kinds[0]).env_id


def _jobs(tasks: Sequence[str], levels: Sequence[str], seeds: Sequence[int | None]) -> list[EpisodeJob]:
    jobs = make_jobs(tasks, levels, seeds)
    if not jobs:
        raise ArgumentError("no episodes: tasks, levels and seeds must be non-empty")
    return jobs


def _serial(
    policy_factory: Callable[[], AnyPolicy], env_id: str, env_kwargs: dict[str, Any], jobs: list[EpisodeJob],
    sink: ResultSink, trajectories: bool,
) -> tuple[str, float]:  # fmt: skip
    policy = policy_factory()
    env = icae_env.make(env_id, task=jobs[0].task, level=jobs[0].level, **env_kwargs)
    started = time.monotonic()
    try:
        for job in jobs:
            sink.draw(job.label)
            path = sink.trajectory_path(job) if trajectories else None
            sink.episode(job, run_episode(env, policy, seed=job.seed, options=job.options, trajectory=path), None)
    finally:
        env.close()
    return policy.name, time.monotonic() - started


def run_suite(
    policy_factory: Callable[[], AnyPolicy],
    tasks: Sequence[str],
    levels: Sequence[str] = ("L1",),
    seeds: Sequence[int | None] = (0,),
    out_dir: str | Path | None = None,
    env_kwargs: dict[str, Any] | None = None,
    trajectories: bool = False,
    progress: bool = True,
    *,
    workers: int = 0,
    address: str | None = None,
    episode_timeout_s: float | None = None,
    env_id: str | None = None,
    on_result: Callable[[EpisodeResult], None] | None = None,
) -> list[EpisodeResult]:
    """Run ``policy_factory()`` on every (task, level, seed) and collect the results.

    Args:
        policy_factory: Builds the policy (once per run, or once per Ray worker).
        tasks: Task names or pack paths.
        levels: Levels to run.
        seeds: Reset seeds.
        out_dir: Where to write ``results.jsonl``, ``summary.md`` and trajectories (None: nothing written).
        env_kwargs: Extra ``icae_env.make`` arguments (budget, max_steps, sandbox ...).
        trajectories: Whether to record a JSONL trajectory per episode (needs ``out_dir``).
        progress: Whether to draw a progress line on stderr.
        workers: Ray worker actors (0: every episode in this process); see :func:`rollout`.
        address: With ``workers``: the Ray cluster to join (None: ``RAY_ADDRESS`` or a new local one).
        episode_timeout_s: With ``workers``: seconds an episode may run before its worker is killed.
        env_id: The registered env to run (None: the one of the tasks' kind).
        on_result: Called with each result as it arrives.

    Returns:
        One :class:`EpisodeResult` per episode, in (task, level, seed) order.

    Raises:
        ArgumentError: for no episodes, tasks of different kinds, or a timeout without workers.
    """
    if workers:
        options: dict[str, Any] = {"out_dir": out_dir, "env_id": env_id, "env_kwargs": env_kwargs}
        options.update(trajectories=trajectories, progress=progress, on_result=on_result)
        return rollout(
            policy_factory, tasks, levels, seeds, workers, address, **options, episode_timeout_s=episode_timeout_s
        ).results
    if episode_timeout_s is not None:
        raise ArgumentError("episode_timeout_s needs workers >= 1 (a hung episode's Ray worker is what gets killed)")
    jobs = _jobs(tasks, levels, seeds)
    sink = ResultSink(len(jobs), Path(out_dir) if out_dir else None, progress, on_result)
    chosen = env_id or env_id_for(tasks)
    agent, wall = _serial(
        policy_factory, chosen, dict(env_kwargs or {}), jobs, sink, trajectories and out_dir is not None
    )
    sink.finish()
    report = RolloutReport(sink.ordered(), [], 0, 0.0, wall)
    sink.write_summary(agent, levels, report)
    return report.results


def rollout(
    agent_factory: Callable[[], AnyPolicy],
    tasks: Sequence[str],
    levels: Sequence[str] = ("L1",),
    seeds: Sequence[int | None] = (0,),
    num_workers: int = 2,
    address: str | None = None,
    *,
    out_dir: str | Path | None = None,
    env_id: str | None = None,
    env_kwargs: dict[str, Any] | None = None,
    trajectories: bool = False,
    progress: bool = True,
    num_cpus_per_worker: float | None = None,
    max_retries: int = 2,
    on_result: Callable[[EpisodeResult], None] | None = None,
    ray_init_kwargs: dict[str, Any] | None = None,
    ready_timeout_s: float = 300.0,
    episode_timeout_s: float | None = None,
) -> RolloutReport:
    """Run ``agent_factory()`` on every (task, level, seed) with ``num_workers`` Ray actors (see :mod:`.ray_pool`).

    Args:
        agent_factory: Builds the policy, once per worker, in the worker (must be picklable: a class, a
            module-level function, or a closure over picklable values).
        tasks: Task names or pack paths (paths must be readable by every worker).
        levels: Levels to run.
        seeds: Reset seeds.
        num_workers: Worker actors (capped at the number of episodes).
        address: Cluster to join: ``"auto"``, ``"host:port"`` or ``"ray://host:port"``; None joins
            ``RAY_ADDRESS`` when set and otherwise starts a local cluster (see :func:`~icae_env.parallel.connect`).
            When Ray is already initialised in this process, that connection is used and left open.
        out_dir: Where to append ``results.jsonl`` (per result, as it arrives) and ``infra_errors.jsonl``, and
            write ``summary.md`` and trajectories (None: nothing written).
        env_id: Registered environment id the workers build (None: the one of the tasks' kind).
        env_kwargs: Extra ``icae_env.make`` arguments (budget, max_steps, sandbox ...).
        trajectories: Whether to record a JSONL trajectory per episode (needs ``out_dir``); workers send them
            back, so the output directory need not be shared with the cluster's nodes.
        progress: Whether to draw a progress line on stderr.
        num_cpus_per_worker: CPUs each worker reserves, fractional allowed (None: 1, or an equal share of the
            cluster when the workers outnumber its CPUs).
        max_retries: Retries of an episode whose worker died.
        on_result: Called on the driver with each result as it arrives.
        ray_init_kwargs: Arguments for :func:`~icae_env.parallel.connect` (``num_cpus``, ``object_store_memory``
            of a local cluster; ``runtime_env``, ``log_to_driver`` ...).
        ready_timeout_s: Seconds to wait for the workers to be placed and started.
        episode_timeout_s: Seconds an episode may run on its worker, from when it is handed out (None or
            ``inf``: no limit; a replacement worker's start-up counts). A late episode's worker is killed and
            replaced, and the episode gets an infrastructure result (``episode_timeout``, not retried).

    Returns:
        A :class:`RolloutReport`.

    Raises:
        DependencyNotInstalled: Ray is not installed.
        ParallelError: The workers could not be placed or started (for example, the environment arguments are
            invalid, or the cluster lacks the CPUs requested).
    """
    from icae_env.parallel.cluster import actor_class, ray_session, require_ray
    from icae_env.run.ray_pool import EpisodeWorker, Settings, WorkerPool, auto_cpus, drive

    if num_workers < 1 or max_retries < 0:
        raise ArgumentError(f"need num_workers >= 1 and max_retries >= 0, got {num_workers!r} and {max_retries!r}")
    if episode_timeout_s is not None and not episode_timeout_s > 0:
        raise ArgumentError(f"episode_timeout_s must be None or > 0 seconds, got {episode_timeout_s!r}")
    timeout = None if episode_timeout_s == float("inf") else episode_timeout_s
    require_ray()
    jobs = _jobs(tasks, levels, seeds)
    sink = ResultSink(len(jobs), Path(out_dir) if out_dir else None, progress, on_result)
    kwargs = {"task": jobs[0].task, "level": jobs[0].level, **(env_kwargs or {})}
    chosen = env_id or env_id_for(tasks)
    with ray_session(address, **(ray_init_kwargs or {})) as ray:
        size = min(num_workers, len(jobs))
        cpus = num_cpus_per_worker if num_cpus_per_worker is not None else auto_cpus(ray, size)
        args = (agent_factory, chosen, kwargs, runtime_rows())
        pool = WorkerPool(actor_class(EpisodeWorker, cpus), args, size, ready_timeout_s)
        try:
            agent = ray.get(pool.actors[0].agent_name.remote())
            settings = Settings(agent, max_retries, bool(trajectories and out_dir), timeout)
            startup = time.monotonic() - sink.started
            sink.started = time.monotonic()
            sink.draw(f"{size} workers started")
            drive(ray, pool, jobs, sink, settings)
            wall = time.monotonic() - sink.started
        except BaseException:
            pool.close(timeout_s=0)  # interrupted or failed: do not wait for episodes in flight
            raise
        pool.close()
    sink.finish()
    report = RolloutReport(sink.ordered(), sink.infra_errors, size, startup, wall)
    sink.write_summary(agent, levels, report)
    return report
