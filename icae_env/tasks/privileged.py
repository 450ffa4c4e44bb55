"""Privileged data every task kind needs: the oracle's questions, golden-delivery actions, hidden paths, task names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from icae_env.tasks.golden import golden_files_of
from icae_env.tasks.models import UserAgentData

__all__ = ["golden_actions", "hidden_paths", "oracle_questions", "pack_ref"]


def oracle_questions(data: UserAgentData) -> tuple[str, ...]:
    """Each record's first trigger phrase, the task's own records first (boilerplate and test files after)."""
    records = data.hidden_constraints
    ordered = [r for r in records if r.is_task_specific] + [r for r in records if not r.is_task_specific]
    return tuple(r.trigger_keywords[0] for r in ordered)


def golden_actions(task: Any) -> tuple[dict[str, Any], ...]:
    """The actions that turn the task's starting workspace (its ``start_dir``, or an empty one) into its golden.

    Every text file that differs is written, executables are made executable, and files of the start that the
    golden lacks are removed. The golden may be a directory or in memory (:func:`golden_files_of`).
    """
    start: Path | None = getattr(task, "start_dir", None)
    files = golden_files_of(task)
    actions: list[dict[str, Any]] = []
    executables = []
    for entry in files:
        original = start / entry.path if start is not None else None
        if original is not None and original.is_file() and original.read_bytes() == entry.content.encode("utf-8"):
            continue  # a revision keeps this file as it is
        actions.append({"tool": "write_file", "path": entry.path, "content": entry.content})
        if entry.executable:
            executables.append(entry.path)
    if executables:
        actions.append({"tool": "bash", "command": "chmod +x " + " ".join(f"'{p}'" for p in executables)})
    if start is not None:
        kept = {entry.path for entry in files}
        removed = [p.relative_to(start).as_posix() for p in sorted(start.rglob("*")) if p.is_file()]
        removed = [p for p in removed if p not in kept and not _golden_has(task, p)]
        if removed:
            actions.append({"tool": "bash", "command": "rm -f " + " ".join(f"'{p}'" for p in removed)})
    return tuple(actions)


def _golden_has(task: Any, relative: str) -> bool:
    """Whether the golden directory holds ``relative`` (binary files included, which the entries leave out)."""
    folder = getattr(task, "golden_dir", None)
    return folder is not None and (folder / relative).exists()


def pack_ref(task: Any) -> str:
    """A name that loads ``task`` again: a built-in's bare id, a generated task's name, else its pack directory."""
    if task.origin.startswith("gen/"):
        return str(task.origin)
    if task.origin != "builtin" and (Path(task.origin) / "task.yaml").is_file():
        return str(task.origin)
    return str(task.id)


def hidden_paths(task: Any, *dirs: Path | None) -> tuple[Path, ...]:
    """The pack directory of ``task`` (when it came from one) and ``dirs``, those that exist."""
    candidates: list[Path | None] = [*dirs]
    if (
        task.origin not in ("builtin", "")
        and not task.origin.startswith("gen/")
        and (Path(task.origin) / "task.yaml").is_file()
    ):
        candidates.append(Path(task.origin))
    return tuple(dict.fromkeys(p for p in candidates if p is not None and p.exists()))
