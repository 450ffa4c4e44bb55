"""icae-env: Gymnasium environments for interactive project-building tasks (ICAE-Bench style).

Public API:
    - ``icae_env.make("icae/ProjectBuild-v0", task="builtin/<name>", level="L1")`` (``gymnasium.make``).
    - :mod:`icae_env.tasks`: task model, built-in suite, ``load_task``, ``list_tasks``, ICAE-Bench import/export.
    - :mod:`icae_env.sandbox`: the sandbox Protocol and its backends (``make_sandbox``).
    - :mod:`icae_env.scoring`: the exact ICAE black-box scorer (``score``).
"""

from __future__ import annotations

from gymnasium import make

from icae_env import errors
from icae_env.registration import register_envs
from icae_env.tasks import list_tasks, load_icae_bench, load_task

__all__ = ["__version__", "errors", "list_tasks", "load_icae_bench", "load_task", "make"]

register_envs()
__version__ = "0.1.0"
