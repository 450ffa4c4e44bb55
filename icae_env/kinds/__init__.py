"""Task kinds (the plug-ins of :class:`icae_env.core.TaskKind`): look-up by name or task, and task selection.

* :func:`make_kind`: a kind instance by registered name (or ``"module:Class"``), with its options.
* :func:`kind_for`: the registered kind that owns a task name or pack path.
* :class:`TaskPool`: the tasks an env draws from, loaded through its kind.

Example:
    >>> kind_for("revision/todo-filter").name, kind_for("builtin/unidiff").name
    ('revision', 'build')
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from icae_env.errors import ArgumentError, ArgumentTypeError, TaskNotFoundError
from icae_env.registration import kind_entries, kind_entry, load_entry_point

__all__ = ["TaskPool", "check_level", "kind_for", "make_kind"]

LEVELS = ("L1", "L2", "L3", "ground")


def make_kind(kind: str, **options: Any) -> Any:
    """Return a new instance of task kind ``kind`` (a registered name, or ``"module:Class"``) with ``options``.

    Raises:
        UnknownNameError: for an unregistered name (naming the registered kinds).
    """
    entry_point = kind if ":" in kind else kind_entry(kind).entry_point
    return load_entry_point(entry_point)(**options)


def kind_for(ref: str | Path) -> Any:
    """Return (an option-less instance of) the first registered kind that owns the task name or path ``ref``."""
    entries = kind_entries()
    for entry in entries:
        kind = make_kind(entry.name)
        if kind.owns(str(ref)):
            return kind
    return make_kind(entries[-1].name)


def check_level(level: Any) -> None:
    """Raise :class:`ArgumentError` unless ``level`` is one of ``L1``, ``L2``, ``L3``, ``ground``."""
    if level not in LEVELS:
        raise ArgumentError(f"level must be one of {list(LEVELS)}, got {level!r}")


def _is_distribution(task: Any) -> bool:
    """Whether ``task`` draws tasks (a :class:`~icae_env.families.TaskDistribution` or alike)."""
    return callable(getattr(task, "sample", None)) and hasattr(task, "ref")


def _choices(task: Any, task_type: type) -> tuple[Any, ...]:
    choices = tuple(task) if isinstance(task, (list, tuple)) else (task,)
    if not choices or not all(isinstance(t, (str, Path, task_type)) or _is_distribution(t) for t in choices):
        kind = task_type.__name__
        raise ArgumentTypeError(f"task must be a name, path, {kind} or a non-empty sequence of them; got {task!r}")
    return tuple(str(t) if isinstance(t, Path) else t for t in choices)


class TaskPool:
    """The tasks an environment draws from; each named task is loaded once, through the env's kind.

    Args:
        task: A task name, pack path, task object, or a non-empty sequence of them.
        kind: The task kind that loads them.

    Raises:
        ArgumentTypeError: for anything else.
    """

    def __init__(self, task: Any, kind: Any) -> None:
        self.kind = kind
        self.choices: Sequence[Any] = _choices(task, kind.task_type)
        self._loaded: dict[str, Any] = {}

    def load(self, task: Any) -> Any:
        """Return ``task`` loaded (cached by name)."""
        if isinstance(task, self.kind.task_type) or _is_distribution(task):
            return task
        if task not in self._loaded:
            self._loaded[task] = self.kind.load(task)
        return self._loaded[task]

    def pick(self, options: dict[str, Any] | None, default_level: str, rng: np.random.Generator) -> tuple[Any, str]:
        """Return the ``(task, level)`` of a reset: ``options`` may set ``task`` and ``level``; else ``rng`` draws.

        Raises:
            ArgumentError: for unknown option keys or a bad level.
            TaskNotFoundError: for an unknown task, or a task without that level.
        """
        options = dict(options or {})
        unknown = set(options) - {"task", "level"}
        if unknown:
            raise ArgumentError(f"unknown reset options {sorted(unknown)}; expected 'task' and/or 'level'")
        level = options.get("level", default_level)
        check_level(level)
        if "task" in options:
            choice = _choices(options["task"], self.kind.task_type)[0]
        else:
            choice = self.choices[int(rng.integers(len(self.choices)))]
        task = self.load(choice)
        if _is_distribution(task):
            task = task.sample(rng)
        if level not in task.levels:
            raise TaskNotFoundError(f"task {task.id!r} has no level {level!r}; available: {sorted(task.levels)}")
        return task, level
