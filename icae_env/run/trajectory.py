"""JSONL trajectories: one flushed line per reset and per step, and a replay that re-runs them.

Line types: ``{"type": "reset", "env_id", "kwargs", "seed", "options", "observation", "info"}`` then one
``{"type": "step", "step", "action", "observation", "reward", "terminated", "truncated", "info"}`` per step.
A file stays readable when the writer is killed mid-run: every line is complete and flushed.

The reset line's ``env_id`` and ``kwargs`` come from :func:`trajectory_header`, the one place that turns an env
into what rebuilds it: task objects are recorded by the reference their kind loads again (never as data, so a
trajectory holds no hidden records, cases, criteria or golden files), and values that are not JSON by their
``repr``. Run directories name trajectory files with :func:`trajectory_name`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
from pydantic import BaseModel

from icae_env.errors import ArgumentError

__all__ = [
    "TrajectoryWriter",
    "task_label",
    "ReplayReport",
    "read_trajectory",
    "replay",
    "jsonable",
    "trajectory_header",
    "trajectory_name",
]


def jsonable(value: Any) -> Any:
    """Convert observations, infos and actions (numpy, pydantic, dataclasses, paths) to JSON-able data."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    return value


def _recordable(value: Any, kind: Any) -> Any:
    """``value`` as a reset line records it: task objects by reference, the rest as JSON (or its repr)."""
    if kind is not None and isinstance(value, kind.task_type):
        return kind.ref(value)
    if callable(getattr(value, "sample", None)) and isinstance(getattr(value, "ref", None), str):
        return value.ref  # a task distribution, by name
    if isinstance(value, (list, tuple)):
        return [_recordable(v, kind) for v in value]
    value = jsonable(value)
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


def trajectory_header(env: Any) -> tuple[str | None, dict[str, Any]]:
    """Return the ``env_id`` and constructor ``kwargs`` that rebuild ``env`` (``(None, {})`` without a spec)."""
    spec = env.spec
    if spec is None:
        return None, {}
    kind = getattr(env.unwrapped, "kind", None)
    return spec.id, {str(k): _recordable(v, kind) for k, v in spec.kwargs.items()}


def trajectory_name(task: str | Path, level: str, seed: int | None) -> str:
    """The file name of one episode's trajectory in a run directory: ``<task>-<level>-<seed>.jsonl``.

    ``<task>`` is a pack directory's name, or a registered name without its namespace, its parts joined by ``-``
    (``builtin/unidiff`` -> ``unidiff``, ``gen/ledger-report/train/0`` -> ``ledger-report-train-0``), so that
    generated tasks of different families and splits get different files.
    """
    return f"{task_label(task)}-{level}-{seed}.jsonl"


def task_label(task: str | Path) -> str:
    """A task's short name: a pack directory's name, or a registered name's parts after its namespace, by ``-``."""
    path = Path(str(task))
    nested = len(path.parts) > 2 and not path.is_absolute() and not path.exists()
    return "-".join(path.parts[1:]) if nested else path.name


class TrajectoryWriter:
    """Appends trajectory lines to ``path``, flushing each one.

    Args:
        path: The JSONL file (parent directories are created).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[str] | None = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def _write(self, record: dict[str, Any]) -> None:
        if self._handle is None:
            raise ArgumentError(f"trajectory writer for {self.path} is closed")
        self._handle.write(json.dumps(jsonable(record), ensure_ascii=False) + "\n")
        self._handle.flush()

    def write_reset(
        self, env_id: str | None, kwargs: dict[str, Any], seed: int | None, options: Any, observation: Any, info: Any
    ) -> None:
        """Record a reset and how to rebuild the env."""
        self._write(
            {
                "type": "reset",
                "env_id": env_id,
                "kwargs": kwargs,
                "seed": seed,
                "options": options,
                "observation": observation,
                "info": info,
            }
        )

    def write_step(
        self, step: int, action: Any, observation: Any, reward: float, terminated: bool, truncated: bool, info: Any
    ) -> None:
        """Record one step."""
        self._write(
            {
                "type": "step",
                "step": step,
                "action": action,
                "observation": observation,
                "reward": reward,
                "terminated": terminated,
                "truncated": truncated,
                "info": info,
            }
        )

    def close(self) -> None:
        """Close the file; safe to call twice."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def read_trajectory(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield the records of a trajectory file, skipping a torn last line (a run killed mid-write)."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue


@dataclasses.dataclass
class ReplayReport:
    """What a replay found: steps re-run and the ones whose observation or reward differ."""

    steps: int = 0
    mismatches: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every replayed step matched."""
        return not self.mismatches


def replay(path: str | Path, **overrides: Any) -> ReplayReport:
    """Re-run the first episode of a trajectory and compare observation text, source, exit code and reward.

    Args:
        path: A trajectory written by :class:`TrajectoryWriter`.
        **overrides: Constructor arguments that replace the recorded ones (e.g. ``sandbox_options``).

    Returns:
        The :class:`ReplayReport`.

    Raises:
        ArgumentError: when the file has no reset record (a ``ValueError``).
    """
    import icae_env

    records = iter(read_trajectory(path))
    head = next((r for r in records if r.get("type") == "reset"), None)
    if head is None or not head.get("env_id"):
        raise ArgumentError(f"{path}: no reset record with an env_id; cannot replay")
    env = icae_env.make(head["env_id"], **{**head.get("kwargs", {}), **overrides})
    report = ReplayReport()
    try:
        env.reset(seed=head.get("seed"), options=head.get("options"))
        for record in records:
            if record.get("type") != "step":
                break
            observation, reward, terminated, truncated, _ = env.step(record["action"])
            report.steps += 1
            expected = record["observation"]
            for key in ("output", "source", "exit_code"):
                if jsonable(observation[key]) != expected.get(key):
                    report.mismatches.append({"step": record["step"], "field": key})
            if abs(float(reward) - float(record["reward"])) > 1e-9:
                report.mismatches.append({"step": record["step"], "field": "reward"})
            if terminated or truncated:
                break
    finally:
        env.close()
    return report
