"""Environment classes. Create them with ``gymnasium.make("icae/<Name>-vN", ...)`` (see ``registration.py``).

:class:`~icae_env.envs.base.IcaeEnv` (in :mod:`icae_env.envs.base`) is the base of all of them; :class:`WorkspaceEnv`
runs any task kind in a sandbox; :class:`ProjectBuildEnv` and :class:`RevisionEnv` are it for the ``build`` and
``revision`` kinds; :class:`ClarifyEnv` is the clarification skill alone.
"""

from __future__ import annotations

from icae_env.envs.clarify import ClarifyEnv
from icae_env.envs.project_build import ProjectBuildEnv
from icae_env.envs.revision import RevisionEnv
from icae_env.envs.workspace import WorkspaceEnv

__all__ = ["ClarifyEnv", "ProjectBuildEnv", "RevisionEnv", "WorkspaceEnv"]
