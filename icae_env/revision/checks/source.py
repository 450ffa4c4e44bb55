"""``source`` checks: regex, JSON-path and unchanged-file tests over the final workspace, with a diff as evidence.

Symbolic links in the workspace are never followed (they are not files here), so a check only ever reads what the
agent wrote inside the workspace.
"""

from __future__ import annotations

import difflib
import filecmp
import json
import re
from pathlib import Path

from icae_env.revision.app import APP_DIR
from icae_env.revision.check_models import SourceCheck, SourceExpect
from icae_env.revision.checks.common import CheckContext, CheckOutcome, json_at, json_equals, short

__all__ = ["run_source_check", "matching_files", "workspace_diff"]

_MAX_FILE_BYTES = 2_000_000


def matching_files(root: Path, pattern: str) -> list[str]:
    """Return the workspace-relative regular files (not symlinks) matching ``pattern``, sorted."""
    if not root.is_dir():
        return []
    found = []
    for path in root.glob(pattern):
        relative = path.relative_to(root)
        if relative.parts and relative.parts[0] == APP_DIR:
            continue
        if path.is_file() and not _through_symlink(root, relative):
            found.append(relative.as_posix())
    return sorted(found)


def _through_symlink(root: Path, relative: Path) -> bool:
    current = root
    for part in relative.parts:
        current = current / part
        if current.is_symlink():
            return True
    return False


class _TooBig:
    """Stands for a file over the size limit (never equal to anything, not even another _TooBig)."""

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]


def _read(root: Path, name: str) -> bytes | _TooBig | None:
    """Return the bytes of ``root/name``; None when it is missing or reached through a symlink; _TooBig if huge."""
    path = root / name
    if _through_symlink(root, Path(name)) or not path.is_file():
        return None
    with path.open("rb") as handle:
        data = handle.read(_MAX_FILE_BYTES + 1)
    return _TooBig() if len(data) > _MAX_FILE_BYTES else data


def _same(start: Path, final: Path, name: str) -> bool:
    """Whether ``name`` is a regular file in both trees (no symlink on the way) with the same bytes."""
    a, b = start / name, final / name
    if _through_symlink(final, Path(name)) or not a.is_file() or not b.is_file():
        return False
    return filecmp.cmp(a, b, shallow=False)


def _text(root: Path, name: str) -> str:
    data = _read(root, name)
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else ""


def _regex(ctx: CheckContext, expect: SourceExpect, files: list[str]) -> tuple[bool, str]:
    if expect.regex is None:
        if expect.absent:
            return (not files, f"{expect.file}: no file may match, found {short(files)}" if files else "no match")
        return (bool(files), f"{expect.file}: {len(files)} file(s)" if files else f"{expect.file}: no such file")
    if not files:
        return (expect.absent, f"{expect.file}: no such file")
    pattern = re.compile(expect.regex, re.MULTILINE)
    hits = [f for f in files if pattern.search(_text(ctx.workspace, f))]
    if expect.absent:
        return (not hits, f"/{expect.regex}/ found in {short(hits)}" if hits else f"/{expect.regex}/ absent")
    misses = sorted(set(files) - set(hits))
    return (not misses, f"/{expect.regex}/ missing in {short(misses)}" if misses else f"/{expect.regex}/ found")


def _json(ctx: CheckContext, expect: SourceExpect, files: list[str]) -> tuple[bool, str]:
    if not files:
        return (False, f"{expect.file}: no such file")
    try:
        value = json_at(json.loads(_text(ctx.workspace, files[0])), expect.json_path or "")
    except (ValueError, LookupError, RecursionError) as exc:
        return (False, f"{files[0]}: {exc}")
    ok = json_equals(value, expect.equals)
    return (ok, f"{files[0]} {expect.json_path}: {short(value)}" + ("" if ok else f" != {short(expect.equals)}"))


def _unchanged(ctx: CheckContext, expect: SourceExpect, files: list[str]) -> tuple[bool, str]:
    originals = matching_files(ctx.task.start_dir, expect.file)
    if not originals:
        return (False, f"{expect.file}: not in the starting workspace")
    changed = [f for f in originals if not _same(ctx.task.start_dir, ctx.workspace, f)]
    return (not changed, f"changed or missing: {short(changed)}" if changed else f"{len(originals)} file(s) unchanged")


def workspace_diff(start: Path, final: Path, names: list[str]) -> str:
    """Return a unified diff of ``names`` between ``start`` and ``final`` (text files only)."""
    chunks = []
    for name in names:
        before, after = _read(start, name), _read(final, name)
        if before == after:
            continue
        if isinstance(before, _TooBig) or isinstance(after, _TooBig):
            chunks.append(f"Files a/{name} and b/{name} differ (over {_MAX_FILE_BYTES} bytes)\n")
            continue
        try:
            a = (before or b"").decode("utf-8").splitlines(keepends=True)
            b = (after or b"").decode("utf-8").splitlines(keepends=True)
        except UnicodeDecodeError:
            chunks.append(f"Binary files a/{name} and b/{name} differ\n")
            continue
        chunks.extend(difflib.unified_diff(a, b, f"a/{name}", f"b/{name}"))
    return "".join(chunks)


def run_source_check(check: SourceCheck, ctx: CheckContext) -> CheckOutcome:
    """Test every expectation of ``check`` against the final workspace."""
    outcome = CheckOutcome()
    touched: set[str] = set()
    for expect in check.expect:
        files = matching_files(ctx.workspace, expect.file)
        touched.update(files, matching_files(ctx.task.start_dir, expect.file))
        if expect.unchanged:
            ok, detail = _unchanged(ctx, expect, files)
        elif expect.json_path is not None:
            ok, detail = _json(ctx, expect, files)
        else:
            ok, detail = _regex(ctx, expect, files)
        outcome.add(ok, detail)
    (ctx.evidence / "diff.patch").write_text(workspace_diff(ctx.task.start_dir, ctx.workspace, sorted(touched)))
    outcome.evidence.append("diff.patch")
    return outcome
