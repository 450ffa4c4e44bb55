"""Environment classes. Create them with ``gymnasium.make("icae/<Name>-vN", ...)`` (see ``registration.py``)."""

from __future__ import annotations

from icae_env.envs.project_build import ProjectBuildEnv
from icae_env.envs.revision import RevisionEnv, RevisionRewardConfig
from icae_env.envs.reward import RewardConfig

__all__ = ["ProjectBuildEnv", "RevisionEnv", "RevisionRewardConfig", "RewardConfig"]
