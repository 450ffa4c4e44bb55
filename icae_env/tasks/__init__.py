"""Tasks: frozen data models, the built-in suite, task packs and ICAE-Bench import/export.

Example:
    >>> from icae_env.tasks import list_tasks, load_task
    >>> task = load_task(list_tasks()[0])
    >>> sorted(task.levels)
    ['L1', 'L2', 'L3', 'ground']
"""

from __future__ import annotations

import difflib
from pathlib import Path

from icae_env.errors import ArgumentTypeError, TaskNotFoundError
from icae_env.tasks.icae_bench import export_icae, load_icae_bench
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
from icae_env.tasks.pack import TASK_FILE, load_case_file, load_pack

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
    "export_icae",
    "list_tasks",
    "load_case_file",
    "load_icae_bench",
    "load_pack",
    "load_task",
]

BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
_BUILTIN_PREFIX = "builtin/"


def list_tasks() -> list[str]:
    """Return the names of the built-in tasks, sorted (``["builtin/config-lint", ...]``)."""
    if not BUILTIN_DIR.is_dir():
        return []
    return sorted(_BUILTIN_PREFIX + p.name for p in BUILTIN_DIR.iterdir() if (p / TASK_FILE).is_file())


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
    if not isinstance(name_or_path, (str, Path)):
        raise ArgumentTypeError(f"name_or_path must be a str or Path, got {type(name_or_path).__name__}")
    text = str(name_or_path)
    name = text[len(_BUILTIN_PREFIX) :] if text.startswith(_BUILTIN_PREFIX) else text
    builtin = BUILTIN_DIR / name
    if "/" not in name and (builtin / TASK_FILE).is_file():
        return load_pack(builtin, origin="builtin")
    path = Path(text)
    if path.name == TASK_FILE:
        path = path.parent
    if (path / TASK_FILE).is_file():
        return load_pack(path)
    known = list_tasks()
    close = difflib.get_close_matches(text, known + [n[len(_BUILTIN_PREFIX) :] for n in known], n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; built-in tasks: {', '.join(known)}"
    raise TaskNotFoundError(f"no task named or at {text!r}{hint}")
