"""icae-env: Gymnasium environments for interactive project-building tasks (ICAE-Bench style).

Public API:
    - ``icae_env.make("icae/ProjectBuild-v0", task="builtin/<name>", level="L1")`` (``gymnasium.make``).
    - ``icae_env.load_task`` / ``icae_env.list_tasks``: tasks by name (:mod:`icae_env.tasks`).
    - ``icae_env.load_icae_bench``: a task of an ICAE-Bench data root (:mod:`icae_env.icae_bench`).
    - :mod:`icae_env.errors`: the typed errors.

Importing the package registers the environment ids (string entry points, :mod:`icae_env.registration`) and imports
nothing else of the package: the task loaders and the ICAE-Bench importer are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gymnasium import make

from icae_env import errors
from icae_env.registration import lazy_getattr, register_envs

if TYPE_CHECKING:
    from icae_env.icae_bench.load import load_icae_bench
    from icae_env.tasks import list_tasks, load_task

__all__ = ["__version__", "errors", "list_tasks", "load_icae_bench", "load_task", "make"]

_LAZY = {
    "list_tasks": "icae_env.tasks",
    "load_task": "icae_env.tasks",
    "load_icae_bench": "icae_env.icae_bench.load",
}

register_envs()
__version__ = "0.4.0"
__getattr__ = lazy_getattr(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__)
