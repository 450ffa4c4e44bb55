"""Records of a run (serial or on Ray): episode jobs, infrastructure errors, the report, and the one sink.

The sink appends each result to ``results.jsonl`` (and each infrastructure error to ``infra_errors.jsonl``) the
moment it is known, draws the progress line, and writes ``summary.md`` at the end, so an interrupted or crashed run
keeps every finished episode. Trajectory files are ``trajectories/<task>-<level>-<seed>.jsonl``
(:func:`~icae_env.run.trajectory.trajectory_name`).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from icae_env.progress import draw_progress
from icae_env.run.episode import EpisodeResult
from icae_env.run.table import format_table
from icae_env.run.trajectory import task_label, trajectory_name

__all__ = [
    "INFRA_PREFIX",
    "EpisodeJob",
    "InfraError",
    "RolloutReport",
    "ResultSink",
    "infra_result",
    "make_jobs",
]

INFRA_PREFIX = "InfrastructureError: "
"""Start of ``EpisodeResult.error`` for an episode lost to the infrastructure rather than to the agent."""


@dataclass(frozen=True)
class EpisodeJob:
    """One episode to run: its position in the run, reset seed and options, and which attempt this is."""

    index: int
    task: str
    level: str
    seed: int | None
    attempt: int = 1

    @property
    def options(self) -> dict[str, Any]:
        """Reset options of the episode."""
        return {"task": self.task, "level": self.level}

    @property
    def label(self) -> str:
        """Short description for progress lines."""
        retry = f" (attempt {self.attempt})" if self.attempt > 1 else ""
        return f"{task_label(self.task)} {self.level} seed {self.seed}{retry}"

    def next_attempt(self) -> EpisodeJob:
        """The same episode, one attempt later."""
        return replace(self, attempt=self.attempt + 1)


class InfraError(BaseModel):
    """An infrastructure failure during one attempt of one episode (one line of ``infra_errors.jsonl``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    level: str
    seed: int | None
    attempt: int
    kind: str
    """``worker_died`` (the worker process or its node went away), ``worker_error`` (worker code raised) or
    ``episode_timeout`` (the episode ran past ``episode_timeout_s``; its worker was killed)."""
    error: str
    worker_pid: int | None = None
    retried: bool = False


@dataclass
class RolloutReport:
    """What :func:`~icae_env.run.rollout` returns (and :func:`~icae_env.run.run_suite` the results of).

    Attributes:
        results: One result per episode, in (task, level, seed) order.
        infra_errors: Every infrastructure failure, retried or not, in the order they happened.
        num_workers: Ray worker actors used (0: the episodes ran in this process).
        startup_s: Seconds spent connecting to Ray and starting the workers.
        wall_s: Seconds from the first episode handed out to the last result received.
    """

    results: list[EpisodeResult]
    infra_errors: list[InfraError] = field(default_factory=list)
    num_workers: int = 0
    startup_s: float = 0.0
    wall_s: float = 0.0

    @property
    def episodes_per_s(self) -> float:
        """Finished episodes per second of :attr:`wall_s`."""
        return len(self.results) / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def retries(self) -> int:
        """Episode attempts that were retried after an infrastructure failure."""
        return sum(error.retried for error in self.infra_errors)

    @property
    def agent_failures(self) -> list[EpisodeResult]:
        """Results whose error came from the agent or environment (not the infrastructure)."""
        return [r for r in self.results if r.error and not r.error.startswith(INFRA_PREFIX)]


def make_jobs(tasks: Sequence[str], levels: Sequence[str], seeds: Sequence[int | None]) -> list[EpisodeJob]:
    """Every (task, level, seed), task-major: the order of a run's results."""
    combos = [(t, lv, s) for t in tasks for lv in levels for s in seeds]
    return [EpisodeJob(i, str(t), lv, s) for i, (t, lv, s) in enumerate(combos)]


def _one_line(exc: BaseException, limit: int) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:limit]


class ResultSink:
    """Collects results as they arrive: appends them to ``results.jsonl`` (and trajectories) and draws progress.

    Args:
        total: Episodes in the run (for the progress line).
        out: Output directory (None: nothing written).
        progress: Whether to draw a progress line on stderr.
        on_result: Called with each result as it arrives.
    """

    def __init__(
        self, total: int, out: Path | None, progress: bool, on_result: Callable[[EpisodeResult], None] | None
    ) -> None:
        self.total, self.out, self.progress, self.on_result = total, out, progress, on_result
        self.results: dict[int, EpisodeResult] = {}
        self.infra_errors: list[InfraError] = []
        self.started = time.monotonic()
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)

    def trajectory_path(self, job: EpisodeJob) -> Path | None:
        """Where the trajectory of ``job`` goes (None when nothing is written)."""
        if self.out is None:
            return None
        return self.out / "trajectories" / trajectory_name(job.task, job.level, job.seed)

    def _append(self, name: str, record: BaseModel) -> None:
        if self.out:
            with open(self.out / name, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(record.model_dump(mode="json")) + "\n")

    def episode(self, job: EpisodeJob, result: EpisodeResult, trajectory: str | None) -> None:
        """Keep and write one episode's result (and trajectory text), then call ``on_result``."""
        self.results[job.index] = result
        self._append("results.jsonl", result)
        path = self.trajectory_path(job)
        if path is not None and trajectory is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(trajectory)
        if self.on_result:
            self.on_result(result)
        self.draw(job.label)

    def infra(self, job: EpisodeJob, kind: str, exc: BaseException, pid: int | None, retried: bool) -> None:
        """Keep and write one infrastructure failure of one attempt."""
        record = InfraError(
            task=job.task,
            level=job.level,
            seed=job.seed,
            attempt=job.attempt,
            kind=kind,
            error=_one_line(exc, 2000),
            worker_pid=pid,
            retried=retried,
        )
        self.infra_errors.append(record)
        self._append("infra_errors.jsonl", record)
        self.draw(f"{job.label}: {kind}, {'retrying' if retried else 'giving up'}")

    def draw(self, label: str) -> None:
        """Redraw the progress line (when enabled)."""
        if not self.progress:
            return
        draw_progress(len(self.results), self.total, self.started, label)

    def finish(self) -> None:
        """End the progress line."""
        if self.progress:
            self.draw("done")
            sys.stderr.write("\n")

    def write_summary(self, agent: str, levels: Sequence[str], report: RolloutReport) -> None:
        """Write ``summary.md``: the result table, how it ran, and a line on infrastructure errors, if any."""
        if self.out is None:
            return
        how = f", {report.num_workers} Ray workers, {report.wall_s:.1f}s" if report.num_workers else ""
        title = f"# icae-env run: {agent}\n\n{len(report.results)} episodes, levels {', '.join(levels)}{how}\n\n"
        lines = [title + format_table(report.results, markdown=True)]
        if report.infra_errors:
            lines.append(
                f"\nInfrastructure errors: {len(report.infra_errors)} ({report.retries} retried), in infra_errors.jsonl"
            )
        (self.out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")

    def ordered(self) -> list[EpisodeResult]:
        """The results so far, in job order."""
        return [self.results[i] for i in sorted(self.results)]


def infra_result(agent: str, job: EpisodeJob, exc: BaseException) -> EpisodeResult:
    """An :class:`EpisodeResult` for an episode lost to the infrastructure (``error`` starts with INFRA_PREFIX).

    Its ``task`` is the task id (a pack's directory name), as in the results of the episodes that ran.
    """
    error = INFRA_PREFIX + _one_line(exc, 2000)
    return EpisodeResult(agent=agent, task=Path(job.task).name, level=job.level, seed=job.seed, error=error)
