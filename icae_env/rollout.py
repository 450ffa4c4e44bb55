"""Run episodes: one function shared by the serial runner, the baselines and (later) parallel workers.

A policy implements :class:`Policy`. :func:`run_episode` never lets an infrastructure failure escape as an
exception: the result carries the error text and traceback instead (re-raised when ``debug`` is set).
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym
from pydantic import BaseModel, ConfigDict

from icae_env.revision.models import RevisionTask
from icae_env.tasks.models import Task
from icae_env.trajectory import TrajectoryWriter, jsonable

__all__ = ["Policy", "EpisodeResult", "run_episode"]


@runtime_checkable
class Policy(Protocol):
    """An agent: told about each new episode, then asked for one action per observation."""

    name: str

    def reset(self, task: Task, level: str, observation: dict[str, Any], seed: int | None) -> None:
        """Start a new episode (privileged baselines may read ``task``; honest agents use only ``observation``)."""

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Return the next action (dict, action model or JSON string)."""


class EpisodeResult(BaseModel):
    """The outcome of one episode (all rates in 0..1; None when not scored or not applicable).

    ProjectBuild episodes fill ``overall`` and the tier rates; revision episodes fill ``strict``, ``graded``,
    ``full_pass`` and ``infra_failure``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: str
    task: str
    level: str
    seed: int | None
    reward: float = 0.0
    overall: float | None = None
    public: float | None = None
    native: float | None = None
    enhanced: float | None = None
    task_coverage: float | None = None
    constraint_coverage: float | None = None
    fallback_rate: float | None = None
    budget_usage: float | None = None
    strict: float | None = None
    graded: float | None = None
    full_pass: bool | None = None
    infra_failure: str | None = None
    steps: int = 0
    seconds: float = 0.0
    terminated: bool = False
    truncated: bool = False
    error: str | None = None
    traceback: str | None = None


def _result_fields(info: dict[str, Any]) -> dict[str, Any]:
    block = info.get("score")
    if not block:
        return {}
    components, interaction = block["components"], block["interaction"]
    if "criteria" in block:  # a revision task
        return {
            "strict": block["strict"],
            "graded": block["graded"],
            "full_pass": block["full_pass"],
            "infra_failure": block["infra_failure"],
            "task_coverage": components["task_coverage"],
            "fallback_rate": interaction["fallback_rate"] / 100.0,
            "budget_usage": interaction["budget_usage_rate"] / 100.0,
        }
    tiers = block["tiers"]
    return {
        "overall": block["overall"] if block["overall"] is not None else components["overall"],
        "public": tiers.get("public", {}).get("rate"),
        "native": tiers.get("native", {}).get("rate"),
        "enhanced": tiers.get("enhanced", {}).get("rate"),
        "task_coverage": components["task_coverage"],
        "constraint_coverage": components["constraint_coverage"],
        "fallback_rate": interaction["fallback_rate"] / 100.0,
        "budget_usage": interaction["budget_usage_rate"] / 100.0,
    }


def _spec_kwargs(env: gym.Env) -> tuple[str | None, dict[str, Any]]:
    spec = env.spec
    if spec is None:
        return None, {}
    kwargs = {k: (v.id if isinstance(v, (Task, RevisionTask)) else v) for k, v in spec.kwargs.items()}
    return spec.id, jsonable(kwargs)


def run_episode(
    env: gym.Env,
    policy: Policy,
    *,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    trajectory: str | Path | None = None,
    debug: bool = False,
) -> EpisodeResult:
    """Run one episode of ``policy`` in ``env`` through ``reset``/``step`` only.

    Args:
        env: An icae-env environment (wrapped or not).
        policy: The agent.
        seed: Reset seed.
        options: Reset options (``task``, ``level``).
        trajectory: Where to append the JSONL trajectory (None: not recorded).
        debug: Re-raise infrastructure errors instead of recording them.

    Returns:
        The :class:`EpisodeResult`.
    """
    started = time.monotonic()
    writer = TrajectoryWriter(trajectory) if trajectory else None
    task_name, level, steps = str((options or {}).get("task", "?")), str((options or {}).get("level", "?")), 0
    try:
        observation, info = env.reset(seed=seed, options=options)
        task_name, level = info["task"], info["level"]
        if writer:
            writer.write_reset(*_spec_kwargs(env), seed, options, observation, info)
        policy.reset(env.unwrapped.task, level, observation, seed)  # type: ignore[attr-defined]
        terminated = truncated = False
        reward = 0.0
        while not (terminated or truncated):
            action = policy.act(observation, info)
            observation, raw_reward, terminated, truncated, info = env.step(action)
            reward = float(raw_reward)
            steps += 1
            if writer:
                writer.write_step(steps, action, observation, float(reward), terminated, truncated, info)
        return EpisodeResult(
            agent=policy.name,
            task=task_name,
            level=level,
            seed=seed,
            reward=float(reward),
            steps=steps,
            seconds=time.monotonic() - started,
            terminated=terminated,
            truncated=truncated,
            **_result_fields(info),
        )
    except Exception as exc:  # noqa: BLE001 - an infrastructure failure becomes a result
        if debug:
            raise
        return EpisodeResult(
            agent=policy.name,
            task=task_name,
            level=level,
            seed=seed,
            steps=steps,
            seconds=time.monotonic() - started,
            error=f"{type(exc).__name__}: {exc}",
            traceback=traceback.format_exc(),
        )
    finally:
        if writer:
            writer.close()
