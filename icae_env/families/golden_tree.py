"""A family's golden as real source files: a fixed core per language and one building block per decision value.

A family folder (``icae_env/families/catalog/<family>/``) holds, per language it ships a golden in::

    golden/<language>/...                     the fixed core, copied as is (the rules module is absent)
    blocks/<language>/_header.<ext>           opens the rules module (its docstring and imports)
    blocks/<language>/<decision>/<value>.<ext>  one building block per (decision, value)
    blocks/<language>/_footer.<ext>           closes the rules module (optional; JavaScript's exports)

The rules module of a task (``rules`` in the family YAML's ``golden`` section names its path) is the header, the
task's constants (:meth:`~icae_env.families.spec.Family.constants`, such as the skin's word for an item), then the
chosen block of every decision in the family's decision order (a decision the task does not have takes its first
value's block), then the footer. Blocks are fragments of that module: they use the names its header imports.
Linting covers the files on disk; type checking covers composed goldens (``tests/families/test_golden_sources.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from icae_env.errors import ArgumentError

__all__ = ["EXTENSIONS", "compose_golden", "core_files", "read_blocks"]

#: Source-file extension per golden language.
EXTENSIONS = {"python": "py", "javascript": "js"}
_SEPARATOR = {"python": "\n\n", "javascript": "\n"}


def _extension(language: str) -> str:
    if language not in EXTENSIONS:
        raise ArgumentError(f"no golden language {language!r}; known: {sorted(EXTENSIONS)}")
    return EXTENSIONS[language]


@cache
def core_files(folder: Path, language: str) -> Mapping[str, str]:
    """The fixed core of ``folder``'s golden in ``language`` (path relative to ``golden/<language>`` -> text).

    Raises:
        ArgumentError: when the family has no golden in ``language``.
    """
    root = folder / "golden" / language
    if not root.is_dir():
        raise ArgumentError(f"{folder.name} has no {language} golden (no folder {root})")
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


@cache
def read_blocks(folder: Path, language: str) -> Mapping[str, Mapping[str, str]]:
    """The building blocks of ``folder``'s golden in ``language``: decision -> value -> source text.

    The header is under the name ``_header`` and the footer (when present) under ``_footer``, each as ``{"": text}``.
    """
    root = folder / "blocks" / language
    ext = _extension(language)
    blocks: dict[str, dict[str, str]] = {}
    for part in ("_header", "_footer"):
        path = root / f"{part}.{ext}"
        if path.is_file():
            blocks[part] = {"": path.read_text(encoding="utf-8")}
    for decision in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "__pycache__"):
        blocks[decision.name] = {p.stem: p.read_text(encoding="utf-8") for p in sorted(decision.glob(f"*.{ext}"))}
    return blocks


def _constants(language: str, constants: Mapping[str, Any]) -> str:
    if language == "python":
        return "".join(f"{name} = {value!r}\n" for name, value in constants.items())
    return "".join(f"const {name} = {json.dumps(value)};\n" for name, value in constants.items())


def compose_golden(
    folder: Path,
    language: str,
    rules_path: str,
    decisions: Sequence[tuple[str, Sequence[str]]],
    values: Mapping[str, str],
    constants: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """The golden sources of one task: the core plus its composed rules module at ``rules_path``.

    Args:
        folder: The family folder.
        language: ``python`` or ``javascript``.
        rules_path: Where the rules module goes (relative to the golden's root).
        decisions: The family's decisions in order, each as (name, its value keys in order).
        values: Decision -> value key for the task's decisions (others take their first value's block).
        constants: Names the rules module defines after its header.

    Raises:
        ArgumentError: for a decision or value without a block file.
    """
    blocks = read_blocks(folder, language)
    parts = [blocks["_header"][""]] if "_header" in blocks else []
    if constants:
        parts.append(_constants(language, constants))
    for name, keys in decisions:
        options = blocks.get(name, {})
        key = values.get(name, keys[0])
        if key not in options:
            raise ArgumentError(f"{folder.name}: no {language} block {name}/{key}; blocks: {sorted(options)}")
        parts.append(options[key])
    if "_footer" in blocks:
        parts.append(blocks["_footer"][""])
    return {**core_files(folder, language), rules_path: _SEPARATOR[language].join(parts)}
