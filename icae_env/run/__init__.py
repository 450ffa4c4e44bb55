"""The run layer: one episode loop, one suite (serial, or on Ray workers), one result sink, one trajectory format.

* :func:`run_episode` (:mod:`.episode`): a :class:`Policy` through ``env.reset``/``env.step`` only, into an
  :class:`EpisodeResult`; a :class:`PrivilegedPolicy` is also handed the task kind's solution.
* :func:`run_suite` / :func:`rollout` (:mod:`.suite`): every (task, level, seed), in this process or on Ray
  (:mod:`.ray_pool`), written through :class:`~icae_env.run.records.ResultSink` (``results.jsonl``,
  ``infra_errors.jsonl``, ``summary.md``, progress) and tabulated by :func:`format_table` (:mod:`.table`).
* :mod:`.trajectory`: the JSONL trajectory format, its one header builder, and :func:`replay`.

Example:
    >>> from icae_env.run import resolve_tasks
    >>> resolve_tasks("builtin")[:2]
    ['builtin/config-lint', 'builtin/cron-next']
"""

from __future__ import annotations

from icae_env.run.episode import EpisodeResult, Policy, PrivilegedPolicy, run_episode, score_of
from icae_env.run.records import INFRA_PREFIX, EpisodeJob, InfraError, RolloutReport, make_jobs
from icae_env.run.suite import env_id_for, resolve_tasks, rollout, run_suite
from icae_env.run.table import format_table
from icae_env.run.trajectory import ReplayReport, TrajectoryWriter, read_trajectory, replay, trajectory_header

__all__ = [
    "INFRA_PREFIX",
    "EpisodeJob",
    "EpisodeResult",
    "InfraError",
    "Policy",
    "PrivilegedPolicy",
    "ReplayReport",
    "RolloutReport",
    "TrajectoryWriter",
    "env_id_for",
    "format_table",
    "make_jobs",
    "read_trajectory",
    "replay",
    "resolve_tasks",
    "rollout",
    "run_episode",
    "run_suite",
    "score_of",
    "trajectory_header",
]
