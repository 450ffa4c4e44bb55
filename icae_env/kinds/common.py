"""What the task kinds share: the oracle's questions and golden-delivery actions, and a task's hidden paths."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from icae_env.tasks.models import UserAgentData

__all__ = ["golden_actions", "hidden_paths", "oracle_questions", "pack_ref"]


def oracle_questions(data: UserAgentData) -> tuple[str, ...]:
    """Each record's first trigger phrase, the task's own records first (boilerplate and test files after)."""
    records = data.hidden_constraints
    ordered = [r for r in records if r.is_task_specific] + [r for r in records if not r.is_task_specific]
    return tuple(r.trigger_keywords[0] for r in ordered)


def _unchanged(start: Path | None, relative: str, path: Path) -> bool:
    return start is not None and (start / relative).is_file() and (start / relative).read_bytes() == path.read_bytes()


def golden_actions(golden: Path | None, start: Path | None = None) -> tuple[dict[str, Any], ...]:
    """The actions that turn the starting workspace (``start``, or an empty one) into the ``golden`` directory.

    Every text file that differs is written, executables are made executable, and files of ``start`` that the
    golden directory lacks are removed. Binary files are not written (no built-in task has one).
    """
    if golden is None:
        return ()
    actions: list[dict[str, Any]] = []
    executables = []
    for path in sorted(p for p in golden.rglob("*") if p.is_file()):
        relative = path.relative_to(golden).as_posix()
        if _unchanged(start, relative, path):
            continue
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        actions.append({"tool": "write_file", "path": relative, "content": content})
        if os.access(path, os.X_OK):
            executables.append(relative)
    if executables:
        actions.append({"tool": "bash", "command": "chmod +x " + " ".join(f"'{p}'" for p in executables)})
    if start is not None:
        removed = [
            p.relative_to(start).as_posix()
            for p in sorted(start.rglob("*"))
            if p.is_file() and not (golden / p.relative_to(start)).exists()
        ]
        if removed:
            actions.append({"tool": "bash", "command": "rm -f " + " ".join(f"'{p}'" for p in removed)})
    return tuple(actions)


def pack_ref(task: Any) -> str:
    """A name that loads ``task`` again: the bare id of a built-in task, else the pack directory it came from."""
    if task.origin != "builtin" and (Path(task.origin) / "task.yaml").is_file():
        return str(task.origin)
    return str(task.id)


def hidden_paths(task: Any, *dirs: Path | None) -> tuple[Path, ...]:
    """The pack directory of ``task`` (when it came from one) and ``dirs``, those that exist."""
    candidates: list[Path | None] = [*dirs]
    if task.origin != "builtin" and (Path(task.origin) / "task.yaml").is_file():
        candidates.append(Path(task.origin))
    return tuple(dict.fromkeys(p for p in candidates if p is not None and p.exists()))
