"""Task selection shared by the environments: which tasks an env draws from, and what a reset picks."""

from __future__ import annotations

from collections.abc import Callable
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


def _choices(task: Any, task_type: type = Task) -> tuple[Any, ...]:
    choices = tuple(task) if isinstance(task, (list, tuple)) else (task,)
    if not choices or not all(isinstance(t, (str, Path, task_type)) for t in choices):
        kind = task_type.__name__
        raise TypeError(f"task must be a name, path, {kind} or a non-empty sequence of them; got {task!r}")
    return tuple(str(t) if isinstance(t, Path) else t for t in choices)


class TaskPool:
    """The tasks an environment draws from; each named task is loaded once.

    Args:
        task: A task name, pack path, task object, or a non-empty sequence of them.
        loader: Loads a task from a name or path.
        task_type: The class of task objects.

    Raises:
        TypeError: for anything else.
    """

    def __init__(self, task: Any, loader: Callable[[str], Any] = load_task, task_type: type = Task) -> None:
        self.task_type, self.loader = task_type, loader
        self.choices = _choices(task, task_type)
        self._loaded: dict[str, Any] = {}

    def load(self, task: Any) -> Any:
        """Return ``task`` loaded (cached by name)."""
        if isinstance(task, self.task_type):
            return task
        if task not in self._loaded:
            self._loaded[task] = self.loader(task)
        return self._loaded[task]

    def pick(self, options: dict[str, Any] | None, default_level: str, rng: np.random.Generator) -> tuple[Any, str]:
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
            choice = _choices(options["task"], self.task_type)[0]
        else:
            choice = self.choices[int(rng.integers(len(self.choices)))]
        task = self.load(choice)
        if level not in task.levels:
            raise TaskNotFoundError(f"task {task.id!r} has no level {level!r}; available: {sorted(task.levels)}")
        return task, level
