"""One environment in a Ray actor (:class:`EnvWorker`) and the outcome of one of its steps (:class:`EnvStep`).

:class:`~icae_env.parallel.RayVectorEnv` holds N of these actors; its module docstring states the stepping and
autoreset contract that :meth:`EnvWorker.step` implements.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import icae_env
from icae_env.registration import KindEntry, apply_rows

__all__ = ["EnvStep", "EnvWorker"]


@dataclass(frozen=True)
class EnvStep:
    """The outcome of one step of one environment of a :class:`~icae_env.parallel.RayVectorEnv`.

    Attributes:
        env_id: Index of the environment (0 .. num_envs - 1).
        observation: The next observation (of the next episode when the step ended one and autoreset is on).
        reward: The step's reward.
        terminated: Whether the step ended the episode by ``submit``.
        truncated: Whether the step ended the episode by a step or time limit.
        info: The step's info (the next episode's reset info when autoreset started one).
        final_observation: The finished episode's last observation when autoreset started a new one, else None.
        final_info: The finished episode's last info when autoreset started a new one, else None.
    """

    env_id: int
    observation: dict[str, Any]
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    final_observation: dict[str, Any] | None = None
    final_info: dict[str, Any] | None = None

    @property
    def done(self) -> bool:
        """Whether the step ended an episode."""
        return self.terminated or self.truncated


class EnvWorker:
    """The Ray actor body: one environment, built in the worker process.

    Args:
        env_id: A registered environment id.
        env_kwargs: ``icae_env.make`` arguments.
        index: The environment's index in its vector.
        rows: The driver's run-time registrations (task kinds and their envs), applied first.
    """

    def __init__(self, env_id: str, env_kwargs: dict[str, Any], index: int, rows: tuple[KindEntry, ...] = ()) -> None:
        apply_rows(rows)
        self._env = icae_env.make(env_id, **env_kwargs)
        self._index = index
        self._options: dict[str, Any] | None = None

    def ready(self) -> int:
        """Return this worker's process id (answers once the constructor has finished)."""
        return os.getpid()

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the environment and remember ``options`` for autoresets."""
        self._options = options
        return self._env.reset(seed=seed, options=options)

    def step(self, action: Any, autoreset: bool) -> EnvStep:
        """Step the environment; with ``autoreset``, a finished episode is followed by a reset at once."""
        observation, reward, terminated, truncated, info = self._env.step(action)
        outcome = EnvStep(self._index, observation, float(reward), bool(terminated), bool(truncated), info)
        if not (autoreset and outcome.done):
            return outcome
        first, reset_info = self._env.reset(options=self._options)
        return EnvStep(
            self._index, first, outcome.reward, outcome.terminated, outcome.truncated, reset_info, observation, info
        )

    def close(self) -> None:
        """Release the environment's sandbox."""
        self._env.close()
