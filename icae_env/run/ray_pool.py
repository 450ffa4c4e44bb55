"""The Ray mode of a run: whole episodes on worker actors, driven from :func:`icae_env.run.rollout`.

Each worker actor applies the driver's run-time registrations (:func:`icae_env.registration.runtime_rows`), builds
its own environment from the registered id and keyword arguments and its own policy from ``agent_factory``, then
runs :func:`~icae_env.run.run_episode` (the function the serial mode uses) on the episodes the driver hands it, one
at a time. The driver streams results back as they finish into the run's one
:class:`~icae_env.run.records.ResultSink`.

Failures are kept apart:

* An agent or environment failure inside an episode is what it is serially: an
  :class:`~icae_env.run.EpisodeResult` whose ``error`` is set by ``run_episode``.
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
import tempfile
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import icae_env
from icae_env.parallel.cluster import stop_actors, wait_ready
from icae_env.registration import KindEntry, apply_rows
from icae_env.run.episode import AnyPolicy, EpisodeResult, run_episode
from icae_env.run.records import EpisodeJob, ResultSink, infra_result

__all__ = ["EpisodeWorker", "Settings", "WorkerPool", "auto_cpus", "drive"]


class EpisodeWorker:
    """The Ray actor body: one environment and one policy, built in the worker process.

    Args:
        agent_factory: Builds the policy (called once, in the worker).
        env_id: A registered environment id.
        env_kwargs: ``icae_env.make`` arguments.
        rows: The driver's run-time registrations (task kinds and their envs), applied first.
    """

    def __init__(
        self,
        agent_factory: Callable[[], AnyPolicy],
        env_id: str,
        env_kwargs: dict[str, Any],
        rows: tuple[KindEntry, ...] = (),
    ) -> None:
        apply_rows(rows)
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
class Settings:
    """What the driver loop needs besides the pool and the sink."""

    agent: str
    max_retries: int
    record: bool
    episode_timeout_s: float | None = None


class WorkerPool:
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
        """Hand ``job`` to the worker in ``slot``; returns the result's object ref."""
        return self.actors[slot].run.remote(job, record)

    def replace(self, slot: int) -> None:
        """Kill the worker in ``slot`` and start a fresh one there."""
        stop_actors([self.actors[slot]], timeout_s=0)
        self.actors[slot], self.pids[slot] = self._class.remote(*self._args), None

    def close(self, timeout_s: float = 30.0) -> None:
        """Close every worker's env and stop the actors."""
        stop_actors(self.actors, timeout_s)


def _settle(
    ray: Any, ref: Any, slot: int, job: EpisodeJob, pool: WorkerPool, sink: ResultSink, settings: Settings
) -> bool:
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


def drive(ray: Any, pool: WorkerPool, jobs: Sequence[EpisodeJob], sink: ResultSink, settings: Settings) -> None:
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
    inflight: dict[Any, tuple[int, EpisodeJob, float]], pool: WorkerPool, sink: ResultSink, settings: Settings
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


def auto_cpus(ray: Any, num_workers: int) -> float:
    """One CPU per worker, or an equal share of the cluster's CPUs when there are more workers than CPUs."""
    total = float(ray.cluster_resources().get("CPU", 1.0))
    return min(1.0, int(10_000 * total / num_workers) / 10_000)
