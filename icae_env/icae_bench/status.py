"""The status file of one certified ICAE-Bench task, the fingerprints that say whether it is still current.

A status file ``<out>/<alias>.json`` (default ``<root>/.certify/``) holds a :class:`TaskStatus`. It is current
while the task's data (its ``repo_alias.json`` entry, record files, PRDs and authoritative cases, by content) and
its golden (file paths, sizes and modification times) are unchanged; :func:`certified_aliases` keeps the aliases
whose current status is ``ok``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from icae_env.icae_bench.refs import LEVEL_DIRS, golden_repos_dir, icae_aliases, rcb_tests_dir, read_alias_table

__all__ = [
    "FINAL_STATUSES",
    "STATUSES",
    "STATUS_DIR",
    "FailingCase",
    "Status",
    "TaskStatus",
    "TierCount",
    "certified_aliases",
    "fingerprint",
    "is_current",
    "read_status",
    "status_dir",
    "task_dirs",
    "write_status",
]

Status = Literal["ok", "golden-fails", "no-harness", "image-missing", "timeout", "data-error"]
STATUSES: tuple[Status, ...] = ("ok", "golden-fails", "no-harness", "image-missing", "timeout", "data-error")
#: Statuses a resumed run keeps; ``image-missing`` and ``timeout`` depend on the machine and are tried again.
FINAL_STATUSES: frozenset[str] = frozenset({"ok", "golden-fails", "no-harness", "data-error"})
STATUS_DIR = ".certify"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FailingCase(_Frozen):
    """One case the golden solution fails: where it is and the scorer's reason."""

    tier: str
    stem: str
    index: int
    reason: str


class TierCount(_Frozen):
    """One tier of the golden's run."""

    passed: int
    total: int
    duration_s: float


class TaskStatus(_Frozen):
    """The outcome of certifying one task (the JSON of its status file).

    Attributes:
        alias: The task alias.
        status: ``ok``, ``golden-fails``, ``no-harness``, ``image-missing``, ``timeout`` or ``data-error``.
        message: One line on what went wrong ("" for ``ok``).
        language: The task language ("" when the task did not load).
        data_sha256: Fingerprint of the task's data.
        golden_sha256: Fingerprint of the golden directory (None without one).
        sandbox: The sandbox backend the golden ran in.
        image: The container image (None for backends without images).
        levels: The levels that loaded.
        harness: Where the golden's ``rcb_tests/test.sh`` came from: ``golden`` (its own) or ``tests`` (the
            test-case tree's, laid over the golden); None when it has none.
        tiers: The golden's passed/total per tier.
        failing_cases: Every case the golden fails.
        empty_passed: Cases an empty workspace passes (must be 0).
        tools: Version line of each tool of the task's toolchain in the sandbox (None: not installed).
        timings: Seconds spent loading, probing the sandbox, scoring the golden, and in all.
        notes: What the importer normalised.
        icae_env_version: The package version that wrote the file.
    """

    alias: str
    status: Status
    message: str = ""
    language: str = ""
    data_sha256: str
    golden_sha256: str | None = None
    sandbox: str
    image: str | None = None
    levels: tuple[str, ...] = ()
    harness: Literal["golden", "tests"] | None = None
    tiers: dict[str, TierCount] = {}
    failing_cases: tuple[FailingCase, ...] = ()
    empty_passed: int = 0
    tools: dict[str, str | None] = {}
    timings: dict[str, float] = {}
    notes: tuple[str, ...] = ()
    icae_env_version: str = ""


def status_dir(root: str | Path, out: str | Path | None = None) -> Path:
    """Where the status files of ``root`` live: ``out``, or ``<root>/.certify``."""
    return Path(out) if out is not None else Path(root) / STATUS_DIR


def _status_path(out: Path, alias: str) -> Path:
    return out / f"{alias.replace('/', '__')}.json"


def read_status(out: str | Path, alias: str) -> TaskStatus | None:
    """The status file of ``alias`` in ``out`` (None when absent or unreadable)."""
    try:
        return TaskStatus.model_validate_json(_status_path(Path(out), alias).read_bytes())
    except (OSError, ValidationError):
        return None


def write_status(out: str | Path, status: TaskStatus) -> Path:
    """Write ``status`` to ``<out>/<alias>.json`` atomically; return the path."""
    path = _status_path(Path(out), status.alias)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.part")
    partial.write_text(status.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return path


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []


def _hash_tree(digest: Any, folder: Path, by_content: bool) -> None:
    for path in _files(folder):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        if by_content:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        else:
            info = path.stat()
            digest.update(f"{info.st_size}:{info.st_mtime_ns}".encode())


def task_dirs(root: str | Path, alias: str) -> tuple[str, Path | None, Path | None]:
    """Return ``(repo_alias.json entry as JSON, test-case tree, golden tree)`` of ``alias`` (None: absent)."""
    root = Path(root)
    meta = read_alias_table(root).get(alias)
    key = str(meta.get("key") or alias) if isinstance(meta, dict) else alias
    names = (key, alias)
    tests = next((rcb_tests_dir(root) / n for n in names if (rcb_tests_dir(root) / n).is_dir()), None)
    golden = next((golden_repos_dir(root) / n for n in names if (golden_repos_dir(root) / n).is_dir()), None)
    return json.dumps(meta, sort_keys=True), tests, golden


def fingerprint(root: str | Path, alias: str) -> tuple[str, str | None]:
    """Return ``(data_sha256, golden_sha256)`` of task ``alias`` (the golden's is None without a golden)."""
    root = Path(root)
    entry, tests, golden = task_dirs(root, alias)
    data = hashlib.sha256(entry.encode())
    for json_dir, prd_dir in LEVEL_DIRS.values():
        for path in (root / "user_agent" / json_dir / f"{alias}.json", root / prd_dir / alias / "start.md"):
            data.update(path.relative_to(root).as_posix().encode() + b"\0")
            data.update(hashlib.sha256(path.read_bytes()).digest() if path.is_file() else b"-")
    if tests is not None:
        _hash_tree(data, tests, by_content=True)
    if golden is None:
        return data.hexdigest(), None
    tree = hashlib.sha256()
    _hash_tree(tree, golden, by_content=False)
    return data.hexdigest(), tree.hexdigest()


def is_current(status: TaskStatus | None, root: str | Path, sandbox: str | None = None) -> bool:
    """Whether ``status`` still describes its task (same data and golden, and ``sandbox`` backend if given)."""
    if status is None or (sandbox is not None and status.sandbox != sandbox):
        return False
    return fingerprint(root, status.alias) == (status.data_sha256, status.golden_sha256)


def certified_aliases(
    root: str | Path, out: str | Path | None = None, aliases: Iterable[str] | None = None
) -> list[str]:
    """The aliases of ``root`` (or of ``aliases``) whose current status file in ``out`` says ``ok``.

    Args:
        root: The ICAE-Bench data root.
        out: The status directory (default ``<root>/.certify``).
        aliases: The aliases to consider (default every alias of the root).
    """
    folder = status_dir(root, out)
    kept = []
    for alias in icae_aliases(root) if aliases is None else aliases:
        status = read_status(folder, alias)
        if status is not None and status.status == "ok" and is_current(status, root):
            kept.append(alias)
    return kept
