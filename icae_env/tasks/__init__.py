"""Tasks: frozen data models, the built-in suite, task packs, and ``load_task`` for every kind of task name.

Example:
    >>> from icae_env.tasks import list_tasks, load_task
    >>> task = load_task(list_tasks()[0])
    >>> sorted(task.levels)
    ['L1', 'L2', 'L3', 'ground']
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from icae_env.errors import TaskNotFoundError
from icae_env.registration import load_entry_point, task_source
from icae_env.tasks.models import (
    LEVELS,
    TIER_DIRS,
    TIERS,
    CaseFile,
    ConstraintKind,
    ContextPointer,
    HiddenConstraint,
    LevelSpec,
    Runtime,
    Task,
    TestCase,
    TestTiers,
    UserAgentData,
)
from icae_env.tasks.pack import BuiltinSuite, load_case_file, load_pack

__all__ = [
    "BUILTIN_DIR",
    "LEVELS",
    "TIERS",
    "TIER_DIRS",
    "CaseFile",
    "ConstraintKind",
    "ContextPointer",
    "HiddenConstraint",
    "LevelSpec",
    "Runtime",
    "Task",
    "TestCase",
    "TestTiers",
    "UserAgentData",
    "list_tasks",
    "load_case_file",
    "load_pack",
    "load_task",
]

BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
_SUITE = BuiltinSuite("builtin", BUILTIN_DIR, "task")


def list_tasks() -> list[str]:
    """Return the names of the built-in tasks, sorted (``["builtin/config-lint", ...]``)."""
    return _SUITE.names()


def load_task(name_or_path: str | Path) -> Task:
    """Load a built-in task by name or any task pack by path.

    Args:
        name_or_path: ``"builtin/<name>"``, a bare built-in name, a pack directory or its ``task.yaml``.

    Returns:
        The validated task.

    Raises:
        TaskNotFoundError: when nothing matches (with close built-in names as suggestions).
        TaskValidationError: when the pack is malformed.
    """
    if isinstance(name_or_path, str):
        source = task_source(name_or_path)
        if source is not None:
            return _from_source(name_or_path, load_entry_point(source))
    pack, origin = _SUITE.resolve(name_or_path)
    return load_pack(pack, origin=origin)


def _from_source(name: str, loader: Callable[[str], Any]) -> Task:
    loaded = loader(name)
    if not isinstance(loaded, Task):
        raise TaskNotFoundError(f"{name!r} names a distribution of generated tasks, not one task: add /<index>")
    return loaded
