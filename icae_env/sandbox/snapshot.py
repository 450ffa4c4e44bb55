"""A private, sanitised copy of the agent's final workspace: what the scorer and the revision grader read.

Grading a copy taken once at submit makes the verdicts a function of the workspace at that moment (the agent's
background processes cannot change files under the grader), and sanitising it keeps agent-made oddities away
from the checks: only regular files, directories and relative symlinks that stay inside the workspace are copied;
named pipes, sockets and devices are skipped, as are other symlinks, trees deeper than ``MAX_DEPTH``, files over
``MAX_FILE_BYTES`` and anything past ``MAX_TOTAL_BYTES`` or ``MAX_ENTRIES``. Each skip is noted.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Snapshot",
    "sandbox_snapshot",
    "take_snapshot",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_TOTAL_BYTES",
    "MAX_ENTRIES",
    "TEMP_PREFIX",
]

#: Prefix of every temporary directory icae-env makes (followed by the owner's pid, so stale ones can be reaped).
TEMP_PREFIX = "icae-sbx-"

MAX_DEPTH = 64
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_ENTRIES = 50_000
_MAX_NOTES = 20


@dataclass
class Snapshot:
    """The copy and what was left out of it."""

    root: Path
    notes: list[str] = field(default_factory=list)
    total_bytes: int = 0
    entries: int = 0

    def note(self, text: str) -> None:
        """Record one skip (the first few are kept)."""
        if len(self.notes) < _MAX_NOTES:
            self.notes.append(text)


def _link_stays_inside(source_root: str, link: str) -> bool:
    if os.path.isabs(os.readlink(link)):
        return False  # it would point into the live workspace (or elsewhere on the host), not into the copy
    target = os.path.realpath(link)
    root = os.path.realpath(source_root)
    return target == root or target.startswith(root + os.sep)


def _copy_file(snapshot: Snapshot, source: str, dest: str, size: int, name: str) -> None:
    if size > MAX_FILE_BYTES:
        snapshot.note(f"{name}: skipped, {size} bytes is over {MAX_FILE_BYTES}")
        return
    if snapshot.total_bytes + size > MAX_TOTAL_BYTES:
        snapshot.note(f"{name}: skipped, the workspace is over {MAX_TOTAL_BYTES} bytes")
        return
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            snapshot.note(f"{name}: skipped, not a regular file")
            return
        with os.fdopen(fd, "rb", closefd=False) as reader, open(dest, "wb") as writer:
            shutil.copyfileobj(reader, writer, 1024 * 1024)
            written = writer.tell()
        shutil.copymode(source, dest, follow_symlinks=False)
        snapshot.total_bytes += written
    finally:
        os.close(fd)


def _copy_entry(snapshot: Snapshot, source_root: str, source: str, dest: str, name: str, depth: int) -> str | None:
    """Copy one entry; return the directory to descend into (None otherwise)."""
    info = os.lstat(source)
    if stat.S_ISLNK(info.st_mode):
        if _link_stays_inside(source_root, source):
            os.symlink(os.readlink(source), dest)
        else:
            snapshot.note(f"{name}: skipped, an absolute symlink or one that leads out of the workspace")
    elif stat.S_ISDIR(info.st_mode):
        if depth >= MAX_DEPTH:
            snapshot.note(f"{name}: skipped, deeper than {MAX_DEPTH} levels")
            return None
        os.mkdir(dest)
        return dest
    elif stat.S_ISREG(info.st_mode):
        _copy_file(snapshot, source, dest, info.st_size, name)
    else:
        snapshot.note(f"{name}: skipped, a special file (pipe, socket or device)")
    return None


def take_snapshot(workspace: Path, dest: Path, skip: tuple[str, ...] = ()) -> Snapshot:
    """Copy ``workspace`` to the new directory ``dest`` (sanitised, see the module docstring); never follows links.

    A missing workspace gives an empty snapshot. Top-level entries named in ``skip`` are not copied.
    """
    snapshot = Snapshot(Path(dest))
    os.makedirs(dest)
    source_root = str(workspace)
    if not os.path.isdir(source_root) or os.path.islink(source_root):
        return snapshot
    stack: list[tuple[str, str, str, int]] = [(source_root, str(dest), "", 0)]
    while stack:
        source_dir, dest_dir, prefix, depth = stack.pop()
        try:
            names = sorted(os.listdir(source_dir))
        except OSError as exc:
            snapshot.note(f"{prefix or '.'}: not readable ({exc.strerror})")
            continue
        for entry in names:
            name = f"{prefix}{entry}"
            if name in skip and not prefix:
                continue
            if snapshot.entries >= MAX_ENTRIES:
                snapshot.note(f"stopped after {MAX_ENTRIES} entries")
                return snapshot
            snapshot.entries += 1
            try:
                child = _copy_entry(
                    snapshot, source_root, os.path.join(source_dir, entry), os.path.join(dest_dir, entry), name, depth
                )
            except OSError as exc:
                snapshot.note(f"{name}: skipped ({exc.strerror or exc})")
                continue
            if child is not None:
                stack.append((os.path.join(source_dir, entry), child, f"{name}/", depth + 1))
    return snapshot


@contextmanager
def sandbox_snapshot(box: Any) -> Iterator[Path]:
    """Yield a sanitised snapshot of ``box``'s workspace as it is now; removed afterwards.

    Scoring the snapshot keeps a result a function of the workspace at that moment (background processes cannot
    change it) and keeps pipes, sockets and outward symlinks the agent made away from the scorer. A backend whose
    workspace is not on this host is copied out first.
    """
    with tempfile.TemporaryDirectory(prefix=f"{TEMP_PREFIX}{os.getpid()}-snapshot-") as scratch:
        source = box.host_workspace
        if source is None:
            box.copy_out(".", Path(scratch) / "raw")
            source = Path(scratch) / "raw"
        yield take_snapshot(Path(source), Path(scratch) / "ws").root
