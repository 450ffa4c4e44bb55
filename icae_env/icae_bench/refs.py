"""Where things are in an ICAE-Bench data root, and the ``icae:`` task references that name its tasks.

A reference ``icae:<root>#<alias>`` names one task of a data root (``icae:<root>#<alias>#L2`` with a default level
other than L1); ``icae:<root>`` alone names every task of the root (:func:`icae_aliases`), which
:func:`icae_env.run.resolve_tasks` expands. The ``build`` kind loads a reference and records one for every task
it loaded from a root, so trajectories replay. As in the reference harness, ``$ICAE_RCB_TESTS_DIR`` and
``$ICAE_GOLDEN_REPOS_DIR`` name the test-case and golden directories when they are not under the root (an
absolute path, or one relative to the root); references do not record them.

Example:
    >>> icae_ref("/data/icae", "realcode@007")
    'icae:/data/icae#realcode@007'
    >>> parse_icae_ref("icae:/data/icae#realcode@007#L3")
    ('/data/icae', 'realcode@007', 'L3')
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from icae_env.errors import ArgumentError, IcaeImportError

__all__ = [
    "GOLDEN_REPOS_ENV",
    "ICAE_REF_PREFIX",
    "LEVEL_DIRS",
    "RCB_TESTS_ENV",
    "golden_repos_dir",
    "icae_aliases",
    "icae_ref",
    "is_icae_ref",
    "parse_icae_ref",
    "rcb_tests_dir",
    "read_alias_table",
    "record_levels",
]

ICAE_REF_PREFIX = "icae:"
RCB_TESTS_ENV = "ICAE_RCB_TESTS_DIR"
"""Environment variable naming the ``rcb_tests_repos`` directory when it is not under the data root."""
GOLDEN_REPOS_ENV = "ICAE_GOLDEN_REPOS_DIR"
"""Environment variable naming the ``realcode_repos`` directory when it is not under the data root."""

#: Level -> (record directory under ``user_agent/``, PRD directory).
LEVEL_DIRS: dict[str, tuple[str, str]] = {
    "L1": ("prd_json", "fuzzy_prds"),
    "L2": ("prd_json_medium", "fuzzy_prds_medium"),
    "L3": ("prd_json_easy", "fuzzy_prds_easy"),
}


def _data_dir(root: Path, env_var: str, default: str) -> Path:
    value = os.environ.get(env_var, "").strip()
    if not value:
        return root / default
    path = Path(value).expanduser()
    return path if path.is_absolute() else root / path


def rcb_tests_dir(root: str | Path) -> Path:
    """The directory of the authoritative cases (``<dir>/<key>/rcb_tests/<tier>/``) of data root ``root``.

    ``$ICAE_RCB_TESTS_DIR`` when set (relative to ``root`` unless absolute), else ``root/rcb_tests_repos``.
    """
    return _data_dir(Path(root), RCB_TESTS_ENV, "rcb_tests_repos")


def golden_repos_dir(root: str | Path) -> Path:
    """The directory of the golden sources (``<dir>/<key>/``) of data root ``root``.

    ``$ICAE_GOLDEN_REPOS_DIR`` when set (relative to ``root`` unless absolute), else ``root/realcode_repos``.
    """
    return _data_dir(Path(root), GOLDEN_REPOS_ENV, "realcode_repos")


def read_alias_table(root: str | Path) -> dict[str, Any]:
    """The ``repo_alias.json`` of ``root`` (``{}`` when absent).

    Raises:
        IcaeImportError: when the file is not valid JSON.
    """
    path = Path(root) / "repo_alias.json"
    if not path.is_file():
        return {}
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise IcaeImportError(f"{path}: -: not valid JSON ({exc})") from None
    return table if isinstance(table, dict) else {}


def icae_aliases(root: str | Path) -> list[str]:
    """Every task alias of a data root: those of ``repo_alias.json`` and those with a record file, sorted."""
    root = Path(root)
    names = {name for name, meta in read_alias_table(root).items() if isinstance(meta, dict)}
    names |= {p.stem for json_dir, _ in LEVEL_DIRS.values() for p in (root / "user_agent" / json_dir).glob("*.json")}
    return sorted(names)


def record_levels(root: str | Path, alias: str) -> list[str]:
    """The levels of ``alias`` that have a record file, in level order."""
    records = Path(root) / "user_agent"
    return [lv for lv, (json_dir, _) in LEVEL_DIRS.items() if (records / json_dir / f"{alias}.json").is_file()]


def is_icae_ref(ref: object) -> bool:
    """Whether ``ref`` is an ``icae:`` task reference (of one task or of a whole root)."""
    return isinstance(ref, str) and ref.startswith(ICAE_REF_PREFIX)


def icae_ref(root: str | Path, alias: str | None = None, level: str | None = None) -> str:
    """The reference of task ``alias`` of ``root`` (of the whole root without ``alias``); ``level`` if not L1."""
    text = f"{ICAE_REF_PREFIX}{root}"
    if alias is not None:
        text += f"#{alias}" + (f"#{level}" if level and level != "L1" else "")
    return text


def parse_icae_ref(ref: str) -> tuple[str, str | None, str | None]:
    """Split ``icae:<root>[#<alias>[#<level>]]`` into ``(root, alias, level)`` (None for what it omits).

    Raises:
        ArgumentError: when ``ref`` is not an ``icae:`` reference or names no root.
    """
    if not is_icae_ref(ref):
        raise ArgumentError(f"not an ICAE task reference (icae:<root>#<alias>): {ref!r}")
    body = ref[len(ICAE_REF_PREFIX) :]
    level = None
    head, sep, tail = body.rpartition("#")
    if sep and tail in LEVEL_DIRS and "#" in head:
        body, level = head, tail
    root, sep, alias = body.rpartition("#") if "#" in body else (body, "", "")
    if not root.strip():
        raise ArgumentError(f"ICAE task reference names no data root: {ref!r}")
    return root, (alias or None) if sep else None, level
