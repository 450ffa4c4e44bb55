"""Whole episodes on Ray actors: :func:`rollout`, and :func:`run_suite_parallel` for ``icae-env run --workers N``.

Each worker actor builds its own environment from the registered id and keyword arguments and its own policy
from ``agent_factory``, then runs :func:`icae_env.rollout.run_episode` (the function the serial runner uses) on
the episodes the driver hands it, one at a time. The driver streams results back as they finish, appends each to
``results.jsonl`` at once, and draws a progress line.

Failures are kept apart:

* An agent or environment failure inside an episode is what it is serially: an
  :class:`~icae_env.rollout.EpisodeResult` whose ``error`` is set by ``run_episode``.
* A worker process that dies (killed, out of memory, node lost) is an infrastructure error: it is written to
  ``infra_errors.jsonl`` and returned in :attr:`RolloutReport.infra_errors`; the worker is replaced and its
  episode is retried up to ``max_retries`` times. An episode that runs out of retries, or whose worker code
  raised past ``run_episode``, gets a result whose ``error`` starts with :data:`INFRA_PREFIX`.
* An episode still running after ``episode_timeout_s`` (a hung agent or endpoint) is an infrastructure error of
  kind ``episode_timeout``: its worker is killed and replaced, like a dead one, and the episode is not retried (a
  hang is usually deterministic); the other workers go on.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import icae_env
from icae_env.parallel.cluster import actor_class, ray_session, require_ray, stop_actors, wait_ready
from icae_env.parallel.records import (
    EpisodeJob,
    ResultSink,
    RolloutReport,
    infra_result,
    make_jobs,
    write_summary,
)
from icae_env.rollout import EpisodeResult, Policy, run_episode
from icae_env.runner import env_id_for

__all__ = ["EpisodeWorker", "rollout", "run_suite_parallel"]


class EpisodeWorker:
    """The Ray actor body: one environment and one policy, built in the worker process.

    Args:
        agent_factory: Builds the policy (called once, in the worker).
        env_id: A registered environment id.
        env_kwargs: ``icae_env.make`` arguments.
    """

    def __init__(self, agent_factory: Callable[[], Policy], env_id: str, env_kwargs: dict[str, Any]) -> None:
        self._env = icae_env.make(env_id, **env_kwargs)
        self._policy = agent_factory()

    def ready(self) -> int:
        """Return this worker's process id (answers once the constructor has finished)."""
        return os.getpid()

    def agent_name(self) -> str:
        """Return the policy's name."""
        return str(self._policy.name)

    def run(self, job: EpisodeJob, record: bool) -> tuple[EpisodeResult, str | None]:
        """Run one episode; returns its result and, when ``record`` is set, its JSONL trajectory text."""
        if not record:
            return run_episode(self._env, self._policy, seed=job.seed, options=job.options), None
        with tempfile.TemporaryDirectory(prefix="icae-trajectory-") as tmp:
            path = Path(tmp) / "trajectory.jsonl"
            result = run_episode(self._env, self._policy, seed=job.seed, options=job.options, trajectory=path)
            return result, path.read_text(encoding="utf-8") if path.is_file() else None

    def close(self) -> None:
        """Release the environment's sandbox."""
        self._env.close()


@dataclass(frozen=True)
class _Settings:
    """What the driver loop needs besides the pool and the sink."""

    agent: str
    max_retries: int
    record: bool
    episode_timeout_s: float | None = None


class _Pool:
    """Worker actors by slot; a dead one is replaced by a fresh actor in the same slot."""

    def __init__(self, worker_class: Any, args: tuple[Any, ...], size: int, ready_timeout_s: float) -> None:
        self._class, self._args = worker_class, args
        self.actors = [worker_class.remote(*args) for _ in range(size)]
        try:
            self.pids: list[int | None] = list(wait_ready(self.actors, ready_timeout_s, f"{size} rollout workers"))
        except BaseException:
            self.close(timeout_s=0)
            raise

    def submit(self, slot: int, job: EpisodeJob, record: bool) -> Any:
        return self.actors[slot].run.remote(job, record)

    def replace(self, slot: int) -> None:
        stop_actors([self.actors[slot]], timeout_s=0)
        self.actors[slot], self.pids[slot] = self._class.remote(*self._args), None

    def close(self, timeout_s: float = 30.0) -> None:
        stop_actors(self.actors, timeout_s)


def _settle(ray: Any, ref: Any, slot: int, job: EpisodeJob, pool: _Pool, sink: ResultSink, settings: _Settings) -> bool:
    """Record the outcome of one attempt; returns whether the episode must be retried."""
    try:
        result, trajectory = ray.get(ref)
    except ray.exceptions.RayTaskError as exc:  # worker code raised past run_episode: deterministic, not retried
        sink.infra(job, "worker_error", exc, pool.pids[slot], retried=False)
        sink.episode(job, infra_result(settings.agent, job, exc), None)
        return False
    except ray.exceptions.RayError as exc:  # the worker process (or its node) went away
        retry = job.attempt <= settings.max_retries
        sink.infra(job, "worker_died", exc, pool.pids[slot], retried=retry)
        pool.replace(slot)
        if not retry:
            sink.episode(job, infra_result(settings.agent, job, exc), None)
        return retry
    sink.episode(job, result, trajectory)
    return False


def _drive(ray: Any, pool: _Pool, jobs: Sequence[EpisodeJob], sink: ResultSink, settings: _Settings) -> None:
    """Hand out episodes to idle workers and settle results as they arrive, until every episode has a result."""
    queue, idle = deque(jobs), deque(range(len(pool.actors)))
    inflight: dict[Any, tuple[int, EpisodeJob, float]] = {}  # ref -> (slot, job, deadline)
    limit = settings.episode_timeout_s
    while queue or inflight:
        while queue and idle:
            slot, job = idle.popleft(), queue.popleft()
            deadline = time.monotonic() + limit if limit is not None else float("inf")
            inflight[pool.submit(slot, job, settings.record)] = (slot, job, deadline)
        first_deadline = min(deadline for _, _, deadline in inflight.values())
        wait_s = None if limit is None else max(0.0, first_deadline - time.monotonic())
        ready, _ = ray.wait(list(inflight), num_returns=1, timeout=wait_s)
        if not ready:
            idle.extend(_expire(inflight, pool, sink, settings))
            continue
        slot, job, _ = inflight.pop(ready[0])
        if _settle(ray, ready[0], slot, job, pool, sink, settings):
            queue.appendleft(job.next_attempt())
        idle.append(slot)


def _expire(
    inflight: dict[Any, tuple[int, EpisodeJob, float]], pool: _Pool, sink: ResultSink, settings: _Settings
) -> list[int]:
    """Give up on the episodes past their deadline: kill and replace their workers; returns the freed slots."""
    now, freed = time.monotonic(), []
    for ref, (slot, job, deadline) in list(inflight.items()):
        if now < deadline:
            continue
        del inflight[ref]
        exc = TimeoutError(f"episode still running after {settings.episode_timeout_s:g} s; its worker was killed")
        sink.infra(job, "episode_timeout", exc, pool.pids[slot], retried=False)
        pool.replace(slot)
        sink.episode(job, infra_result(settings.agent, job, exc), None)
        freed.append(slot)
    return freed


def _auto_cpus(ray: Any, num_workers: int) -> float:
    """One CPU per worker, or an equal share of the cluster's CPUs when there are more workers than CPUs."""
    total = float(ray.cluster_resources().get("CPU", 1.0))
    return min(1.0, int(10_000 * total / num_workers) / 10_000)


def rollout(
    agent_factory: Callable[[], Policy],
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
    """Run ``agent_factory()`` on every (task, level, seed) with ``num_workers`` Ray actors.

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
        env_id: Registered environment id the workers build (None: chosen from the tasks, see
            :func:`~icae_env.runner.env_id_for`).
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
    if num_workers < 1 or max_retries < 0:
        raise ValueError(f"need num_workers >= 1 and max_retries >= 0, got {num_workers!r} and {max_retries!r}")
    if episode_timeout_s is not None and not episode_timeout_s > 0:
        raise ValueError(f"episode_timeout_s must be None or > 0 seconds, got {episode_timeout_s!r}")
    if episode_timeout_s == float("inf"):
        episode_timeout_s = None
    require_ray()
    jobs = make_jobs(tasks, levels, seeds)
    if not jobs:
        raise ValueError("no episodes: tasks, levels and seeds must be non-empty")
    out = Path(out_dir) if out_dir else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    kwargs = {"task": jobs[0].task, "level": jobs[0].level, **(env_kwargs or {})}
    sink = ResultSink(len(jobs), out, progress, on_result)
    with ray_session(address, **(ray_init_kwargs or {})) as ray:
        size = min(num_workers, len(jobs))
        cpus = num_cpus_per_worker if num_cpus_per_worker is not None else _auto_cpus(ray, size)
        chosen = env_id or env_id_for(tasks)
        pool = _Pool(actor_class(EpisodeWorker, cpus), (agent_factory, chosen, kwargs), size, ready_timeout_s)
        try:
            agent = ray.get(pool.actors[0].agent_name.remote())
            settings = _Settings(agent, max_retries, bool(trajectories and out), episode_timeout_s)
            startup = time.monotonic() - sink.started
            sink.started = time.monotonic()
            sink.draw(f"{size} workers started")
            _drive(ray, pool, jobs, sink, settings)
            wall = time.monotonic() - sink.started
        except BaseException:
            pool.close(timeout_s=0)  # interrupted or failed: do not wait for episodes in flight
            raise
        pool.close()
    if progress:
        sink.draw("done")
        sys.stderr.write("\n")
    report = RolloutReport(sink.ordered(), sink.infra_errors, size, startup, wall)
    if out:
        write_summary(out, settings.agent, levels, report)
    return report


def run_suite_parallel(
    policy_factory: Callable[[], Policy],
    tasks: Sequence[str],
    levels: Sequence[str] = ("L1",),
    seeds: Sequence[int] = (0,),
    out_dir: str | Path | None = None,
    env_kwargs: dict[str, Any] | None = None,
    trajectories: bool = False,
    progress: bool = True,
    *,
    workers: int = 2,
    address: str | None = None,
    episode_timeout_s: float | None = None,
) -> list[EpisodeResult]:
    """:func:`icae_env.runner.run_suite` on Ray: same arguments and outputs, plus ``workers`` and ``address``.

    Args:
        policy_factory: Builds the policy (once per worker, in the worker).
        tasks: Task names or pack paths.
        levels: Levels to run.
        seeds: Reset seeds.
        out_dir: Where to write ``results.jsonl``, ``summary.md``, ``infra_errors.jsonl`` and trajectories.
        env_kwargs: Extra ``icae_env.make`` arguments.
        trajectories: Whether to record a JSONL trajectory per episode (needs ``out_dir``).
        progress: Whether to draw a progress line on stderr.
        workers: Ray worker actors.
        address: Cluster to join (None: ``RAY_ADDRESS`` or a new local cluster); see :func:`rollout`.
        episode_timeout_s: Seconds an episode may run (None: no limit); see :func:`rollout`.

    Returns:
        One :class:`~icae_env.rollout.EpisodeResult` per episode, in run order.
    """
    report = rollout(
        policy_factory,
        tasks,
        levels,
        seeds,
        num_workers=workers,
        address=address,
        out_dir=out_dir,
        env_kwargs=env_kwargs,
        trajectories=trajectories,
        progress=progress,
        episode_timeout_s=episode_timeout_s,
    )
    return report.results
