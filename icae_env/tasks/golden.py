"""A task's golden solution wherever it lives: a directory (``golden_dir``) or in memory (``golden_files``)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from icae_env.tasks.models import GoldenFile

__all__ = ["golden_files_of", "golden_workspace", "has_golden", "read_golden_dir", "write_golden"]


def has_golden(task: Any) -> bool:
    """Whether ``task`` ships a golden solution (on disk or in memory)."""
    return getattr(task, "golden_dir", None) is not None or bool(getattr(task, "golden_files", ()))


def read_golden_dir(folder: Path) -> tuple[GoldenFile, ...]:
    """The text files under ``folder`` as :class:`GoldenFile` entries, sorted (binary files are left out)."""
    files = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        files.append(
            GoldenFile(path=path.relative_to(folder).as_posix(), content=content, executable=os.access(path, os.X_OK))
        )
    return tuple(files)


def golden_files_of(task: Any) -> tuple[GoldenFile, ...]:
    """The golden solution's text files, from memory or from its directory (``()`` when it has none)."""
    if getattr(task, "golden_files", ()):
        return tuple(task.golden_files)
    folder = getattr(task, "golden_dir", None)
    return read_golden_dir(folder) if folder is not None else ()


def write_golden(files: tuple[GoldenFile, ...], dest: Path) -> Path:
    """Write ``files`` under ``dest`` (created), making the executable ones executable; return ``dest``."""
    for entry in files:
        target = dest / entry.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(entry.content, encoding="utf-8")
        if entry.executable:
            target.chmod(0o755)
    dest.mkdir(parents=True, exist_ok=True)
    return dest


@contextmanager
def golden_workspace(task: Any) -> Iterator[Path | None]:
    """Yield a directory holding ``task``'s golden solution (None when it has none).

    A golden on disk is yielded as it is; one held in memory is written to a temporary directory, removed after.
    """
    if getattr(task, "golden_dir", None) is not None:
        yield task.golden_dir
        return
    if not getattr(task, "golden_files", ()):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="icae-golden-") as scratch:
        yield write_golden(task.golden_files, Path(scratch) / "golden")
