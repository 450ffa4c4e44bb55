"""The one table of registered environments, and the function that registers it with Gymnasium.

IDs are ``icae/<Name>-v<N>``; any change to behaviour or grading bumps ``N``. Entry points are strings so that
``EnvSpec`` stays serialisable (Ray workers rebuild envs from it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

__all__ = ["EnvFamily", "ENV_FAMILIES", "register_envs"]


@dataclass(frozen=True)
class EnvFamily:
    """One registered environment family.

    Attributes:
        id: ``icae/<Name>-v<N>``.
        entry_point: ``"module:Class"``.
        kwargs: Default constructor arguments (overridable in ``gymnasium.make``).
        nondeterministic: Whether the same seed and actions may give different results.
    """

    id: str
    entry_point: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    nondeterministic: bool = False


ENV_FAMILIES: tuple[EnvFamily, ...] = (
    EnvFamily(
        id="icae/ProjectBuild-v0",
        entry_point="icae_env.envs.project_build:ProjectBuildEnv",
        kwargs={"task": "builtin/config-lint", "level": "L1", "sandbox": "local", "budget": 16, "max_steps": 200},
    ),
    EnvFamily(
        id="icae/Clarify-v0",
        entry_point="icae_env.envs.clarify:ClarifyEnv",
        kwargs={"task": "builtin/config-lint", "level": "L1", "budget": 16, "question_cost": 0.02, "max_steps": 64},
    ),
    EnvFamily(
        id="icae/Revision-v0",
        entry_point="icae_env.envs.revision:RevisionEnv",
        kwargs={"task": "revision/todo-filter", "sandbox": "local", "budget": 0, "max_steps": 200},
    ),
)


def register_envs() -> None:
    """Register every family in :data:`ENV_FAMILIES` (idempotent)."""
    for family in ENV_FAMILIES:
        if family.id in gym.registry:
            continue
        gym.register(
            id=family.id,
            entry_point=family.entry_point,
            kwargs=dict(family.kwargs),
            nondeterministic=family.nondeterministic,
            disable_env_checker=False,
            order_enforce=False,  # the env raises icae_env.errors.ResetNeeded itself, with a clearer message
        )
