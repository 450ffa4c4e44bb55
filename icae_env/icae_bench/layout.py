"""Layout checks of an ICAE-Bench data root (section 1 of the format notes), run on staged trees before promotion.

A check looks at a *view*: a top-level entry present in the staging directory hides the data root's own, so the
root as it will be after promotion is checked before anything in it changes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icae_env.icae_bench.refs import LEVEL_DIRS
from icae_env.tasks.models import TIER_DIRS

__all__ = ["ALIAS_TABLE", "FULL_RELEASE_ALIASES", "GOLDEN_DIR", "LayoutReport", "TESTS_DIR", "View", "check_layout"]

ALIAS_TABLE = "repo_alias.json"
TESTS_DIR = "rcb_tests_repos"
GOLDEN_DIR = "realcode_repos"
FULL_RELEASE_ALIASES = 480
_SHOWN_PROBLEMS = 3


@dataclass(frozen=True)
class View:
    """The data root as it will be once ``staging`` (when given) is promoted into it."""

    root: Path
    staging: Path | None = None

    def path(self, relative: str) -> Path:
        """Where ``relative`` (``top/rest``) lives in the view."""
        top = relative.split("/", 1)[0]
        if self.staging is not None and (self.staging / top).exists():
            return self.staging / relative
        return self.root / relative

    def has(self, relative: str) -> bool:
        """Whether ``relative`` exists in the view."""
        return self.path(relative).exists()


@dataclass(frozen=True)
class LayoutReport:
    """What a layout check found.

    Attributes:
        aliases: Aliases in ``repo_alias.json`` (0 without it).
        with_tests: Aliases (or test keys, without an alias table) with all three case tiers; None without tests.
        with_golden: Aliases (or golden keys) with a golden tree; None without the goldens.
        problems: One line per problem; empty when the layout is complete.
    """

    aliases: int
    with_tests: int | None
    with_golden: int | None
    problems: tuple[str, ...]

    def summary(self) -> str:
        """One line: the counts, and the first problems if any."""
        parts = [f"{self.aliases} aliases (the full release has {FULL_RELEASE_ALIASES})"]
        if self.with_tests is not None:
            parts.append(f"{self.with_tests} with the three case tiers")
        if self.with_golden is not None:
            parts.append(f"{self.with_golden} with a golden")
        if self.problems:
            shown = "; ".join(self.problems[:_SHOWN_PROBLEMS])
            more = len(self.problems) - _SHOWN_PROBLEMS
            parts.append(f"{len(self.problems)} problem(s): {shown}" + (f"; and {more} more" if more > 0 else ""))
        return ", ".join(parts)


def _alias_table(view: View, problems: list[str]) -> dict[str, Any] | None:
    if not view.has(ALIAS_TABLE):
        return None
    try:
        table = json.loads(view.path(ALIAS_TABLE).read_text(encoding="utf-8-sig"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        problems.append(f"{ALIAS_TABLE} is not readable JSON ({exc.__class__.__name__})")
        return None
    if not isinstance(table, dict) or not table:
        problems.append(f"{ALIAS_TABLE} is not a non-empty JSON object")
        return None
    return table


def _key(alias: str, meta: Any) -> str:
    key = meta.get("key") if isinstance(meta, dict) else None
    return str(key) if key else alias


def _level_problems(view: View, alias: str) -> list[str]:
    wanted = [f"{prd}/{alias}/start.md" for _, prd in LEVEL_DIRS.values()]
    wanted += [f"user_agent/{records}/{alias}.json" for records, _ in LEVEL_DIRS.values()]
    return [f"{alias}: no {rel}" for rel in wanted if not view.path(rel).is_file()]


def _tier_problems(view: View, label: str, key: str) -> list[str]:
    wanted = [f"{TESTS_DIR}/{key}/rcb_tests/{tier}" for tier in TIER_DIRS.values()]
    return [f"{label}: no {rel}/" for rel in wanted if not view.path(rel).is_dir()]


def _keys_in(view: View, top: str) -> list[str]:
    folder = view.path(top)
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def check_layout(view: View) -> LayoutReport:
    """Check a data root (as a :class:`View`) against the release layout.

    With ``repo_alias.json``, every alias must have the three PRD levels and the three record levels and, when
    ``rcb_tests_repos/`` is present, the three case tiers under ``rcb_tests_repos/<key>/rcb_tests/``. Goldens are
    counted (a release may ship a golden per task or not); an empty ``realcode_repos/`` is a problem. Without an
    alias table, the test keys with all three tiers are counted instead and at least one is required.
    """
    problems: list[str] = []
    table = _alias_table(view, problems)
    tests, golden = view.path(TESTS_DIR).is_dir(), view.path(GOLDEN_DIR).is_dir()
    if table is not None:
        keys = {alias: _key(alias, meta) for alias, meta in table.items()}
        for alias, key in keys.items():
            problems += _level_problems(view, alias)
            problems += _tier_problems(view, alias, key) if tests else []
        failing = {p.split(":", 1)[0] for p in problems if "rcb_tests" in p}
        with_tests = len(keys) - len(failing) if tests else None
        with_golden = sum(view.path(f"{GOLDEN_DIR}/{k}").is_dir() for k in keys.values()) if golden else None
    else:
        test_keys = _keys_in(view, TESTS_DIR)
        with_tests = sum(not _tier_problems(view, k, k) for k in test_keys) if tests else None
        with_golden = len(_keys_in(view, GOLDEN_DIR)) if golden else None
        if with_tests == 0:
            problems.append(f"{TESTS_DIR}/ holds no <key>/rcb_tests/ with the three case tiers")
    if with_golden == 0:
        problems.append(f"{GOLDEN_DIR}/ holds no golden tree for any task")
    return LayoutReport(len(table or {}), with_tests, with_golden, tuple(problems))
