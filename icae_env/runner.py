"""Run a policy over many tasks and levels: progress line, result table, JSONL results and summary.md.

Used by ``icae-env run`` and by the baselines' ``main()``. Results are appended to ``results.jsonl`` as each
episode finishes (flushed), so an interrupted run keeps everything finished so far.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import icae_env
from icae_env.revision.pack import is_revision_task, list_revision_tasks
from icae_env.rollout import EpisodeResult, Policy, run_episode
from icae_env.tasks import list_tasks

__all__ = ["resolve_tasks", "run_suite", "format_table", "env_id_for", "ENV_ID", "REVISION_ENV_ID"]

ENV_ID = "icae/ProjectBuild-v0"
REVISION_ENV_ID = "icae/Revision-v0"


def env_id_for(tasks: Sequence[str]) -> str:
    """Return the env id that runs ``tasks``: Revision when every one is a revision task, else ProjectBuild.

    Raises:
        ValueError: when revision and other tasks are mixed.
    """
    revision = [is_revision_task(t) for t in tasks]
    if any(revision) and not all(revision):
        raise ValueError("revision tasks and project-building tasks cannot run in one suite; run them separately")
    return REVISION_ENV_ID if revision and all(revision) else ENV_ID


_REVISION_COLUMNS = ("task", "Strict", "Graded", "Full-pass", "steps", "s")
_COLUMNS = ("task", "level", "Overall", "Public", "Native", "Enhanced", "coverage", "fallback", "budget", "steps", "s")


def resolve_tasks(spec: str) -> list[str]:
    """Expand ``builtin`` (every built-in task), ``revision`` (every built-in revision task) and names."""
    names: list[str] = []
    for part in (p.strip() for p in spec.split(",")):
        if part == "builtin":
            names.extend(list_tasks())
        elif part == "revision":
            names.extend(list_revision_tasks())
        elif part:
            names.append(part)
    if not names:
        raise ValueError(f"no tasks selected by {spec!r}")
    return names


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _row(r: EpisodeResult) -> tuple[str, ...]:
    return (
        r.task,
        r.level,
        _pct(r.overall),
        _pct(r.public),
        _pct(r.native),
        _pct(r.enhanced),
        _pct(r.task_coverage),
        _pct(r.fallback_rate),
        _pct(r.budget_usage),
        str(r.steps),
        f"{r.seconds:.1f}",
    )


def _revision_rows(results: Sequence[EpisodeResult]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for r in results:
        if r.error:
            rows.append((r.task, "ERROR", r.error[:60], "", "", ""))
        elif r.infra_failure:
            rows.append((r.task, "INFRA", "", "", str(r.steps), f"{r.seconds:.1f}"))
        else:
            full = "-" if r.full_pass is None else ("yes" if r.full_pass else "no")
            rows.append((r.task, _pct(r.strict), _pct(r.graded), full, str(r.steps), f"{r.seconds:.1f}"))
    counted = [r for r in results if r.graded is not None and not r.infra_failure and not r.error]
    if counted:
        n = len(counted)
        rows.append(
            (
                "MEAN (per task)",
                _pct(sum(r.strict or 0.0 for r in counted) / n),
                _pct(sum(r.graded or 0.0 for r in counted) / n),
                f"{100 * sum(bool(r.full_pass) for r in counted) / n:.1f}%",
                f"{sum(r.steps for r in counted) / n:.1f}",
                f"{sum(r.seconds for r in counted):.1f}",
            )
        )
    return rows


def _render(columns: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])
    widths = [max(len(str(x)) for x in col) for col in zip(columns, *rows, strict=False)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)) for row in [columns, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_table(results: Sequence[EpisodeResult], markdown: bool = False) -> str:
    """Return the per-episode table (plain text, or markdown for summary.md), with a mean row.

    Revision episodes (every result with ``graded`` set, or an error) get Strict / Graded / Full-pass columns.
    """
    if (
        results
        and all(r.graded is not None or r.infra_failure or r.error for r in results)
        and any(r.graded is not None for r in results)
    ):
        return _render(_REVISION_COLUMNS, _revision_rows(results), markdown)
    rows = [_row(r) if not r.error else (r.task, r.level, "ERROR", r.error[:60], *[""] * 7) for r in results]
    scored = [r for r in results if r.overall is not None]
    if scored:

        def mean(attr: str) -> float | None:
            values = [getattr(r, attr) for r in scored if getattr(r, attr) is not None]
            return sum(values) / len(values) if values else None

        rows.append(
            (
                "MEAN",
                "",
                *(
                    _pct(mean(a))
                    for a in (
                        "overall",
                        "public",
                        "native",
                        "enhanced",
                        "task_coverage",
                        "fallback_rate",
                        "budget_usage",
                    )
                ),
                f"{sum(r.steps for r in scored) / len(scored):.1f}",
                f"{sum(r.seconds for r in scored):.1f}",
            )
        )
    return _render(_COLUMNS, rows, markdown)


def _progress(done: int, total: int, label: str, started: float) -> None:
    bar = "#" * int(20 * done / total)
    sys.stderr.write(f"\r[{bar:<20}] {done}/{total} {time.monotonic() - started:6.1f}s {label:<40.40}")
    sys.stderr.flush()


def run_suite(
    policy_factory: Callable[[], Policy],
    tasks: Sequence[str],
    levels: Sequence[str] = ("L1",),
    seeds: Sequence[int] = (0,),
    out_dir: str | Path | None = None,
    env_kwargs: dict[str, Any] | None = None,
    trajectories: bool = False,
    progress: bool = True,
) -> list[EpisodeResult]:
    """Run ``policy_factory()`` on every (task, level, seed) and collect the results.

    Args:
        policy_factory: Builds the policy (once per run).
        tasks: Task names or pack paths.
        levels: Levels to run.
        seeds: Reset seeds.
        out_dir: Where to write ``results.jsonl``, ``summary.md`` and trajectories (None: nothing written).
        env_kwargs: Extra ``icae_env.make`` arguments (budget, max_steps, sandbox ...).
        trajectories: Whether to record a JSONL trajectory per episode (needs ``out_dir``).
        progress: Whether to draw a progress line on stderr.

    Returns:
        One :class:`EpisodeResult` per episode, in run order.
    """
    out = Path(out_dir) if out_dir else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    policy = policy_factory()
    env = icae_env.make(env_id_for(tasks), task=tasks[0], level=levels[0], **(env_kwargs or {}))
    jobs = [(t, lv, s) for t in tasks for lv in levels for s in seeds]
    results: list[EpisodeResult] = []
    started = time.monotonic()
    try:
        for i, (task, level, seed) in enumerate(jobs):
            if progress:
                _progress(i, len(jobs), f"{task} {level}", started)
            path = out / "trajectories" / f"{Path(task).name}-{level}-{seed}.jsonl" if out and trajectories else None
            result = run_episode(env, policy, seed=seed, options={"task": task, "level": level}, trajectory=path)
            results.append(result)
            if out:
                with open(out / "results.jsonl", "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(result.model_dump(mode="json")) + "\n")
        if progress:
            _progress(len(jobs), len(jobs), "done", started)
            sys.stderr.write("\n")
    finally:
        env.close()
    if out:
        title = f"# icae-env run: {policy.name}\n\n{len(results)} episodes, levels {', '.join(levels)}\n\n"
        (out / "summary.md").write_text(title + format_table(results, markdown=True) + "\n", encoding="utf-8")
    return results
