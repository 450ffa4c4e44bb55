"""Import tasks from an ICAE-Bench data root.

The layout is described in ``docs/icae-format.md`` section 1: ``user_agent/prd_json{,_medium,_easy}/<alias>.json``,
``fuzzy_prds{,_medium,_easy}/<alias>/start.md``, ``repo_alias.json`` and the optional separate downloads
``rcb_tests_repos/<key>/rcb_tests/<tier>/*.json`` and ``realcode_repos/<key>/``, or wherever
``$ICAE_RCB_TESTS_DIR`` / ``$ICAE_GOLDEN_REPOS_DIR`` say (:mod:`icae_env.icae_bench.refs`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import JsonValue, ValidationError

from icae_env.errors import IcaeImportError
from icae_env.icae_bench.records import Notes, as_text, read_cases, read_constraints, read_pointers
from icae_env.icae_bench.refs import (
    LEVEL_DIRS,
    golden_repos_dir,
    rcb_tests_dir,
    read_alias_table,
)
from icae_env.tasks.models import TIER_DIRS, TIERS, CaseFile, LevelSpec, Task, TestTiers
from icae_env.tasks.runtimes import default_runtime, normalise_language

__all__ = ["DENOMINATORS", "ICAE_LIMITS", "ICAE_ORIGIN", "PRD_HEADER", "is_icae_import", "load_icae_bench"]

ICAE_ORIGIN = "icae-bench:"
"""Prefix of the ``origin`` of every task loaded from an ICAE-Bench data root."""

#: ICAE's time limits for imported tasks: one 2400 s budget per tier and room for a build before the first output
#: (the reference has no per-case limit; the watchdog allows two minutes between outputs). Built-in tasks keep their
#: own fast limits; ``icae_env.scoring.ScoreLimits`` (the ``scoring:`` configuration) overrides either.
ICAE_LIMITS: dict[str, Any] = {"case_timeout_s": 120.0, "tier_timeout_s": 2400.0, "first_output_s": 1200.0}

PRD_HEADER = "## Product Requirement Document\n\n"
_DIFFICULTY = {"normal": "L1", "medium": "L2", "easy": "L3"}
_DEFAULT_FALLBACK = "I don't have specific details on that aspect. Could you ask about something else?"

#: ``repo_alias.json`` fields carried in ``Task.meta``: the golden's size, the structural metrics' denominators.
DENOMINATORS = ("total_code_files", "total_lines_of_code")


def _resolve_alias(table: dict[str, Any], alias: str) -> tuple[str, dict[str, Any]]:
    if alias in table and isinstance(table[alias], dict):
        return alias, table[alias]
    for name, meta in table.items():
        if isinstance(meta, dict) and meta.get("key") == alias:
            return name, meta
    return alias, {}


def _read_level_file(root: Path, alias: str, level: str, notes: Notes) -> dict[str, Any] | None:
    path = root / "user_agent" / LEVEL_DIRS[level][0] / f"{alias}.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        notes.add(f"{level}: {path} is not valid JSON ({exc}), level skipped")
        return None
    if not isinstance(data, dict):
        notes.add(f"{level}: {path} is not a JSON object, level skipped")
        return None
    return data


def _level_prd(root: Path, alias: str, level: str, data: dict[str, Any], notes: Notes) -> str:
    start = root / LEVEL_DIRS[level][1] / alias / "start.md"
    if start.is_file():
        return start.read_text(encoding="utf-8", errors="replace")
    fuzzy = data.get("fuzzy_prd")
    if isinstance(fuzzy, list):
        fuzzy = "\n\n".join(as_text(part) for part in fuzzy)
        notes.add(f"{level}: fuzzy_prd given as a list of parts, joined")
    if not isinstance(fuzzy, str) or not fuzzy.strip():
        notes.add(f"{level}: no start.md and no usable fuzzy_prd; PRD is empty")
        fuzzy = ""
    return PRD_HEADER + as_text(fuzzy)


def _level_spec(root: Path, alias: str, level: str, data: dict[str, Any], notes: Notes) -> LevelSpec:
    oracle = data.get("oracle_data")
    if not isinstance(oracle, dict):
        notes.add(f"{level}: no oracle_data object; records read from the top level")
        oracle = data
    extra = sorted(k for k in data if k.startswith("_"))
    if extra:
        notes.add(f"{level}: ignored metadata keys {extra}")
    fallback = as_text(oracle.get("fallback_response")).strip()
    if not fallback:
        notes.add(f"{level}: no fallback_response; a default one is used")
    signature = oracle.get("golden_api_signature")
    if isinstance(signature, list):
        signature = "\n".join(as_text(s) for s in signature)
        notes.add(f"{level}: golden_api_signature given as a list, joined by newlines")
    return LevelSpec(
        prd=_level_prd(root, alias, level, data, notes),
        hidden_constraints=read_constraints(oracle.get("hidden_constraints"), level, notes),
        context_pointers=read_pointers(oracle.get("context_pointers"), level, notes),
        golden_api_signature=as_text(signature),
        fallback_response=fallback or _DEFAULT_FALLBACK,
    )


def _embedded_public(raw: Any, notes: Notes) -> tuple[CaseFile, ...]:
    if isinstance(raw, list):
        raw = {f"feature{i + 1}.json": item for i, item in enumerate(raw)}
        notes.add("public_test_cases: a list of files, named feature<N>")
    files = []
    for name, content in raw.items() if isinstance(raw, dict) else []:
        stem = str(name)[:-5] if str(name).endswith(".json") else str(name)
        parsed = read_cases(content, f"public_test_cases/{name}", notes)
        if parsed is not None:
            files.append(CaseFile(stem=stem, description=parsed[0], cases=parsed[1]))
    return tuple(sorted(files, key=lambda f: f.stem))


def _tier_dir(root: Path, names: tuple[str, ...], tier: str) -> Path | None:
    tests = rcb_tests_dir(root)
    for name in names:
        for candidate in (tests / name / "rcb_tests" / tier, tests / name / tier):
            if candidate.is_dir():
                return candidate
    return None


def _load_tier_dir(folder: Path, notes: Notes) -> tuple[CaseFile, ...]:
    files = []
    for path in sorted(folder.glob("*.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8-sig"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            notes.add(f"{folder.name}/{path.name}: not valid JSON, skipped")
            continue
        parsed = read_cases(raw, f"{folder.name}/{path.name}", notes)
        if parsed is not None:
            files.append(CaseFile(stem=path.stem, description=parsed[0], cases=parsed[1]))
    return tuple(files)


def _tiers(root: Path, names: tuple[str, ...], public: tuple[CaseFile, ...], notes: Notes) -> TestTiers:
    found: dict[str, tuple[CaseFile, ...]] = {}
    for tier in TIERS:
        folder = _tier_dir(root, names, TIER_DIRS[tier])
        if folder is not None:
            found[tier] = _load_tier_dir(folder, notes)
    if not found.get("public"):
        found["public"] = public
    missing = [t for t in ("native", "enhanced") if not found.get(t)]
    if missing:
        notes.add(f"hidden tiers not available ({', '.join(missing)}): {rcb_tests_dir(root)}/<key> not found or empty")
    return TestTiers(**found)


_EXTENSION_LANGUAGE = {
    ".py": "python",
    ".js": "javascript",
    ".ts": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".rb": "ruby",
    ".java": "java",
    ".kt": "kotlin",
    ".php": "php",
    ".dart": "dart",
    ".cpp": "c++",
    ".cs": "c#",
}


def _language(meta: dict[str, Any], golden: Path | None, notes: Notes) -> str:
    language = meta.get("language")
    if isinstance(language, str) and language.strip():
        return normalise_language(language)
    counts: dict[str, int] = {}
    for path in golden.rglob("*") if golden else ():
        if path.suffix in _EXTENSION_LANGUAGE:
            counts[_EXTENSION_LANGUAGE[path.suffix]] = counts.get(_EXTENSION_LANGUAGE[path.suffix], 0) + 1
    guess = max(counts, key=counts.__getitem__) if counts else "unknown"
    notes.add(f"language not in repo_alias.json; {'inferred from the golden: ' + guess if counts else 'unknown'}")
    return guess


def _denominators(meta: dict[str, Any], notes: Notes) -> dict[str, JsonValue]:
    found: dict[str, JsonValue] = {}
    for name in DENOMINATORS:
        value = meta.get(name)
        try:
            number = int(float(value)) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else 0
        except ValueError:
            number = 0
        if number > 0:
            found[name] = number
        elif meta:
            notes.add(f"repo_alias.json has no usable {name} ({value!r}); structural metrics count the golden")
    return found


def load_icae_bench(root: str | Path, alias: str, level: str = "L1") -> Task:
    """Load one ICAE-Bench task (all levels present) from a data root.

    Args:
        root: The ICAE-Bench data root.
        alias: The task alias (``realcode@001``) or its ``owner__repo`` key.
        level: The task's default level (``L1``/``L2``/``L3`` or ICAE's ``normal``/``medium``/``easy``); its
            record file must exist.

    Returns:
        A strict :class:`Task`; ``task.notes`` lists what was normalised, ``task.available_tiers`` which tiers
        it has (public only without the ``rcb_tests_repos`` download), ``task.meta`` the release's golden size
        (``total_code_files``, ``total_lines_of_code``), the denominators of the structural metrics.

    Raises:
        IcaeImportError: when the root, alias or requested level cannot be found.
    """
    root = Path(root)
    level = _DIFFICULTY.get(level, level)
    if level not in LEVEL_DIRS:
        raise IcaeImportError(f"level must be one of {sorted(LEVEL_DIRS)}, got {level!r}")
    if not (root / "user_agent").is_dir():
        raise IcaeImportError(f"{root}: not an ICAE-Bench data root (no user_agent/ directory)")
    alias, meta = _resolve_alias(read_alias_table(root), alias)
    notes = Notes()
    read = {lv: _read_level_file(root, alias, lv, notes) for lv in LEVEL_DIRS}
    raw_levels = {lv: data for lv, data in read.items() if data is not None}
    if level not in raw_levels:
        have = sorted(raw_levels) or "none"
        why = "".join(f"; {note}" for note in notes.lines() if note.startswith(f"{level}: "))
        raise IcaeImportError(f"{root}: task {alias!r} has no usable {level} record file; levels present: {have}{why}")
    levels = {lv: _level_spec(root, alias, lv, data, notes) for lv, data in raw_levels.items()}
    public = _embedded_public(raw_levels[level].get("public_test_cases"), notes)
    key = str(meta.get("key") or alias)
    goldens = golden_repos_dir(root)
    golden = next((p for p in (goldens / key, goldens / alias) if p.is_dir()), None)
    language = _language(meta, golden, notes)
    tests = _tiers(root, (key, alias), public, notes)
    denominators = _denominators(meta, notes)
    try:
        return Task(
            id=alias,
            title=str(meta.get("repo_name") or key),
            language=language,
            runtime=default_runtime(language),
            levels=levels,  # type: ignore[arg-type]
            tests=tests,
            golden_dir=golden.resolve() if golden else None,
            default_level=level,  # type: ignore[arg-type]
            origin=f"{ICAE_ORIGIN}{root.resolve()}",
            notes=notes.lines(),
            meta=denominators,
            **ICAE_LIMITS,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise IcaeImportError(f"{root}: task {alias!r} cannot be normalised: {field}: {first['msg']}") from None


def is_icae_import(task: Task) -> bool:
    """Whether ``task`` was loaded from an ICAE-Bench data root (:func:`load_icae_bench`)."""
    return task.origin.startswith(ICAE_ORIGIN)
