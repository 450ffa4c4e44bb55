"""Load revision task packs (layout in ``docs/revision-tasks.md``) and the built-in revision suite."""

from __future__ import annotations

import shutil
from pathlib import Path

from pydantic import Field

from icae_env.errors import TaskValidationError
from icae_env.revision.models import RevisionTask
from icae_env.tasks.pack import TASK_FILE, BuiltinSuite, read_yaml_mapping, validate_model

__all__ = [
    "load_revision_pack",
    "load_revision_task",
    "list_revision_tasks",
    "starting_workspace",
    "is_revision_task",
    "REVISION_BUILTIN_DIR",
]

REVISION_BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
_PREFIX = "revision/"
_SUITE = BuiltinSuite("revision", REVISION_BUILTIN_DIR, "revision task")


class _PackFile(RevisionTask):
    """``task.yaml``: a :class:`RevisionTask` without the fields the layout gives."""

    start_dir: Path = Field(default=Path("start"), exclude=True)


def load_revision_pack(pack: Path, *, origin: str | None = None) -> RevisionTask:
    """Load and validate the revision pack at ``pack``.

    Raises:
        TaskValidationError: naming the file and field when the pack is malformed.
    """
    pack = Path(pack)
    file = pack / TASK_FILE
    raw = read_yaml_mapping(file)
    for name in ("kind", "start_dir", "golden_dir", "origin"):
        if name in raw and name != "kind":
            raise TaskValidationError(str(file), name, "unknown field (given by the pack layout)")
    start, golden = pack / "start", pack / "golden"
    if not start.is_dir():
        raise TaskValidationError(str(start), "-", "missing starting workspace directory")
    spec = validate_model(_PackFile, file, raw)
    if spec.id != pack.name:
        raise TaskValidationError(str(file), "id", f"must equal the directory name {pack.name!r}, got {spec.id!r}")
    root = pack.resolve()
    for i, attachment in enumerate(spec.attachments):
        source = (pack / attachment.source).resolve()
        if not source.is_relative_to(root):
            raise TaskValidationError(str(file), f"attachments[{i}].source", "must be a file inside the pack")
        if not source.is_file():
            raise TaskValidationError(str(file), f"attachments[{i}].source", f"no file {attachment.source!r}")
    fields = spec.model_dump(exclude={"start_dir", "golden_dir", "origin"})
    return RevisionTask.model_validate(
        {
            **fields,
            "start_dir": start.resolve(),
            "golden_dir": golden.resolve() if golden.is_dir() else None,
            "attachments": [{**a, "source": str((pack / a["source"]).resolve())} for a in fields["attachments"]],
            "origin": origin or str(pack.resolve()),
        }
    )


def starting_workspace(task: RevisionTask, dest: Path) -> Path:
    """Write the workspace the agent starts from (the starting app plus the attachments) to ``dest``; return it."""
    shutil.copytree(task.start_dir, dest, dirs_exist_ok=True, symlinks=True)
    for attachment in task.attachments:
        target = dest / attachment.dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(attachment.source, target)
    return dest


def is_revision_task(name_or_path: str | Path) -> bool:
    """Whether ``name_or_path`` names a revision task (``revision/<name>``, or a pack whose task has criteria)."""
    text = str(name_or_path)
    if text.startswith(_PREFIX):
        return True
    path = Path(text)
    path = path.parent if path.name == TASK_FILE else path
    try:
        return "criteria" in read_yaml_mapping(path / TASK_FILE)
    except TaskValidationError:
        return False


def list_revision_tasks() -> list[str]:
    """Return the names of the built-in revision tasks (``["revision/notes-api", ...]``), sorted."""
    return _SUITE.names()


def load_revision_task(name_or_path: str | Path) -> RevisionTask:
    """Load a built-in revision task (``revision/<name>`` or ``<name>``) or a pack by path.

    Raises:
        TaskNotFoundError: when nothing matches (with suggestions).
        TaskValidationError: when the pack is malformed.
    """
    pack, origin = _SUITE.resolve(name_or_path)
    return load_revision_pack(pack, origin=origin)
