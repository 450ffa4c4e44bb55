"""One episode: the :class:`Policy` protocols, :class:`EpisodeResult` and :func:`run_episode`.

A policy is told about each new episode with exactly what the agent sees (the first observation, the reset info
and the seed) and then asked for one action per observation. Only a policy that declares itself privileged
(``privileged = True``, the oracle baselines) is also handed the task kind's :class:`~icae_env.core.Solution`, as
``reset(..., solution=...)``; no policy is ever given the task object or its hidden data.

:func:`run_episode` never lets an infrastructure failure escape as an exception: the result carries the error
text and traceback instead (re-raised when ``debug`` is set). An endpoint error of a model-backed policy
(:class:`~icae_env.llm_http.LLMHttpError` from ``act``: the context is full, the server is gone after its retries)
is not lost work: the episode ends truncated, the workspace is scored as it is, and the error is kept in
``agent_error``.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym
from pydantic import BaseModel, ConfigDict

from icae_env.core import Score, Solution
from icae_env.kinds import make_kind
from icae_env.llm_http import LLMHttpError
from icae_env.run.trajectory import TrajectoryWriter, trajectory_header

__all__ = ["AnyPolicy", "EpisodeResult", "Policy", "PrivilegedPolicy", "StepCallback", "run_episode", "score_of"]


@runtime_checkable
class Policy(Protocol):
    """An agent: told about each new episode, then asked for one action per observation."""

    name: str

    def reset(self, observation: dict[str, Any], info: dict[str, Any], seed: int | None) -> None:
        """Start a new episode from what the agent sees: the first observation, the reset info, the seed."""

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Return the next action (dict, action model or JSON string; text for text-action envs)."""


@runtime_checkable
class PrivilegedPolicy(Protocol):
    """A policy that is handed the task's privileged solution (oracle baselines: their scores are upper bounds).

    Attributes:
        privileged: Always True; :func:`run_episode` looks for it.
    """

    name: str
    privileged: bool

    def reset(self, observation: dict[str, Any], info: dict[str, Any], seed: int | None, *, solution: Solution) -> None:
        """Start a new episode; ``solution`` is the kind's :meth:`~icae_env.core.TaskKind.cheat`."""

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Return the next action."""


AnyPolicy = Policy | PrivilegedPolicy
"""What the run layer accepts: an honest or a privileged policy."""

StepCallback = Callable[[int, Any, dict[str, Any]], None]
"""Called after each step with the step number, the action taken and the step's info (progress lines)."""


class EpisodeResult(BaseModel):
    """The outcome of one episode (all rates in 0..1; None when not scored or not applicable).

    Which fields a scored episode fills is its score's :meth:`~icae_env.core.Score.record` (``build``: Overall
    and the tier rates; ``revision``: Strict, Graded, Full-pass and the infrastructure failure).
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
    agent_error: str | None = None
    """Why the policy stopped early without losing the episode (an endpoint error): it ended truncated and scored."""


def score_of(block: dict[str, Any] | None) -> Score | None:
    """Return the typed score of an ``info["score"]`` block (None when the episode was not scored)."""
    if not block:
        return None
    score: Score = make_kind(block["kind"]).score_type.model_validate(block)
    return score


def _result_fields(score: Score | None) -> dict[str, Any]:
    """The result fields of a scored episode: the header's interaction rates, then the kind's own."""
    if score is None:
        return {}
    stats = score.interaction
    rates = {"fallback_rate": stats.fallback_rate / 100, "budget_usage": stats.budget_usage_rate / 100} if stats else {}
    return {**rates, **score.record()}


def _start(policy: Any, env: gym.Env, observation: dict[str, Any], info: dict[str, Any], seed: int | None) -> None:
    if getattr(policy, "privileged", False) is True:
        policy.reset(observation, info, seed, solution=env.unwrapped.cheat())  # type: ignore[attr-defined]
    else:
        policy.reset(observation, info, seed)


def run_episode(
    env: gym.Env,
    policy: AnyPolicy,
    *,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    trajectory: str | Path | None = None,
    debug: bool = False,
    on_step: StepCallback | None = None,
) -> EpisodeResult:
    """Run one episode of ``policy`` in ``env`` through ``reset``/``step`` only.

    Args:
        env: An icae-env environment (wrapped or not).
        policy: The agent.
        seed: Reset seed.
        options: Reset options (``task``, ``level``).
        trajectory: Where to append the JSONL trajectory (None: not recorded).
        debug: Re-raise infrastructure errors instead of recording them.
        on_step: Called after each step (see :data:`StepCallback`).

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
            writer.write_reset(*trajectory_header(env), seed, options, observation, info)
        _start(policy, env, observation, info, seed)
        terminated = truncated = False
        reward = 0.0
        while not (terminated or truncated):
            try:
                action = policy.act(observation, info)
            except LLMHttpError as exc:  # the model is gone, not the work: score the workspace as it is
                return _stopped(env, policy.name, (task_name, level, seed, steps), started, exc)
            observation, raw_reward, terminated, truncated, info = env.step(action)
            reward = float(raw_reward)
            steps += 1
            if writer:
                writer.write_step(steps, action, observation, reward, terminated, truncated, info)
            if on_step is not None:
                on_step(steps, action, info)
        score = score_of(info.get("score"))
        return EpisodeResult(
            agent=policy.name,
            task=task_name,
            level=level,
            seed=seed,
            reward=reward,
            steps=steps,
            seconds=time.monotonic() - started,
            terminated=terminated,
            truncated=truncated,
            **_result_fields(score),
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


def _stopped(
    env: gym.Env, agent: str, where: tuple[str, str, int | None, int], started: float, exc: LLMHttpError
) -> EpisodeResult:
    """The result of an episode whose policy raised an endpoint error: truncated, the workspace scored as it is."""
    task, level, seed, steps = where
    evaluate = getattr(env.unwrapped, "evaluate", None)
    score: Score | None = evaluate() if callable(evaluate) else None
    return EpisodeResult(
        agent=agent,
        task=task,
        level=level,
        seed=seed,
        reward=score.reward if score is not None else 0.0,
        steps=steps,
        seconds=time.monotonic() - started,
        truncated=True,
        agent_error=f"{type(exc).__name__}: {exc}",
        **_result_fields(score),
    )
