"""Task selection shared by the environments: which tasks an env draws from, and what a reset picks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from icae_env.errors import TaskNotFoundError
from icae_env.tasks import LEVELS, Task, load_task

__all__ = ["TaskPool", "check_level"]


def check_level(level: Any) -> None:
    """Raise ValueError unless ``level`` is one of :data:`~icae_env.tasks.LEVELS`."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {list(LEVELS)}, got {level!r}")


def _choices(task: Any) -> tuple[str | Task, ...]:
    choices = tuple(task) if isinstance(task, (list, tuple)) else (task,)
    if not choices or not all(isinstance(t, (str, Path, Task)) for t in choices):
        raise TypeError(f"task must be a name, path, Task or a non-empty sequence of them; got {task!r}")
    return tuple(str(t) if isinstance(t, Path) else t for t in choices)


class TaskPool:
    """The tasks an environment draws from; each named task is loaded once.

    Args:
        task: A task name, pack path, :class:`~icae_env.tasks.Task`, or a non-empty sequence of them.

    Raises:
        TypeError: for anything else.
    """

    def __init__(self, task: Any) -> None:
        self.choices = _choices(task)
        self._loaded: dict[str, Task] = {}

    def load(self, task: str | Task) -> Task:
        """Return ``task`` loaded (cached by name)."""
        if isinstance(task, Task):
            return task
        if task not in self._loaded:
            self._loaded[task] = load_task(task)
        return self._loaded[task]

    def pick(self, options: dict[str, Any] | None, default_level: str, rng: np.random.Generator) -> tuple[Task, str]:
        """Return the ``(task, level)`` of a reset: ``options`` may set ``task`` and ``level``; else ``rng`` draws.

        Raises:
            ValueError: for unknown option keys or a bad level.
            TaskNotFoundError: for an unknown task, or a task without that level.
        """
        options = dict(options or {})
        unknown = set(options) - {"task", "level"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; expected 'task' and/or 'level'")
        level = options.get("level", default_level)
        check_level(level)
        if "task" in options:
            choice = _choices(options["task"])[0]
        else:
            choice = self.choices[int(rng.integers(len(self.choices)))]
        task = self.load(choice)
        if level not in task.levels:
            raise TaskNotFoundError(f"task {task.id!r} has no level {level!r}; available: {sorted(task.levels)}")
        return task, level
