"""Structural metrics: source files and LOC, and File % / LOC % / class and method similarity to the golden.

File % and LOC % divide by the golden's source files and LOC, or, for ICAE-Bench tasks, by the release's own
``total_code_files`` / ``total_lines_of_code`` (``repo_alias.json``, carried in ``Task.meta``), as the reference
does. Test directories, build outputs and ``rcb_tests`` are excluded. Classes and ``Owner.method`` names come from
``ast`` for Python and from a small brace-aware scanner for JavaScript/TypeScript; other languages count class
names only. Module-level functions are owned by their file stem.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from icae_env.scoring.report import StructureReport

__all__ = ["count_source", "measure_structure", "source_files", "python_names", "javascript_names"]

SOURCE_EXTENSIONS = {
    ".py",
    ".js",
    ".mjs",
    ".cjs",
    ".ts",
    ".tsx",
    ".jsx",
    ".java",
    ".kt",
    ".go",
    ".rs",
    ".rb",
    ".php",
    ".dart",
    ".c",
    ".cc",
    ".cpp",
    ".cxx",
    ".h",
    ".hpp",
    ".cs",
    ".swift",
    ".scala",
    ".sh",
}
EXCLUDED_DIRS = {
    "rcb_tests",
    "tests",
    "test",
    "__tests__",
    "spec",
    "specs",
    "node_modules",
    "build",
    "dist",
    "target",
    "out",
    ".git",
    "__pycache__",
    "venv",
    ".venv",
    "vendor",
    "coverage",
    ".idea",
    ".vscode",
    "bin",
    "obj",
}
_JS_CLASS = re.compile(r"\bclass\s+([A-Za-z_$][\w$]*)")
_JS_METHOD = re.compile(r"^\s*(?:static\s+|async\s+|get\s+|set\s+|\*\s*)*([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*\{", re.M)
_JS_FUNCTION = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)"
    r"|^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)",
    re.M,
)
_GENERIC_CLASS = re.compile(r"\b(?:class|struct|interface|trait|enum)\s+([A-Za-z_]\w*)")
_KEYWORDS = {"if", "for", "while", "switch", "catch", "function", "return", "constructor"}


def source_files(root: Path) -> list[Path]:
    """Return the source files under ``root``, excluding tests, build outputs and ``rcb_tests``."""
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if any(part in EXCLUDED_DIRS or part.startswith(".") for part in rel[:-1]):
            continue
        if path.suffix in SOURCE_EXTENSIONS and path.is_file() and not path.is_symlink():
            found.append(path)
    return found


def _loc(path: Path) -> int:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    return sum(1 for line in text.splitlines() if line.strip())


def count_source(root: Path) -> tuple[int, int]:
    """Return ``(source files, non-blank lines)`` under ``root``, counted as the structural metrics count them."""
    files = source_files(root)
    return len(files), sum(_loc(p) for p in files)


def python_names(source: str, module: str) -> tuple[set[str], set[str]]:
    """Return ``(classes, Owner.method names)`` of Python ``source`` (empty sets when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set(), set()
    classes, methods = set(), set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes.add(node.name)
            methods |= {
                f"{node.name}.{n.name}" for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods.add(f"{module}.{node.name}")
    return classes, methods


def _class_body(source: str, start: int) -> str:
    open_at = source.find("{", start)
    if open_at < 0:
        return ""
    depth = 0
    for i in range(open_at, len(source)):
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        if depth == 0:
            return source[open_at + 1 : i]
    return source[open_at + 1 :]


def javascript_names(source: str, module: str) -> tuple[set[str], set[str]]:
    """Return ``(classes, Owner.method names)`` of JavaScript/TypeScript ``source``."""
    classes, methods = set(), set()
    for match in _JS_CLASS.finditer(source):
        classes.add(match[1])
        body = _class_body(source, match.end())
        methods |= {f"{match[1]}.{m[1]}" for m in _JS_METHOD.finditer(body) if m[1] not in _KEYWORDS}
    for match in _JS_FUNCTION.finditer(source):
        methods.add(f"{module}.{match[1] or match[2]}")
    return classes, methods


def _names(files: list[Path]) -> tuple[set[str], set[str]]:
    classes: set[str] = set()
    methods: set[str] = set()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".py":
            found = python_names(text, path.stem)
        elif path.suffix in {".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx"}:
            found = javascript_names(text, path.stem)
        else:
            found = ({m[1] for m in _GENERIC_CLASS.finditer(text)}, set())
        classes |= found[0]
        methods |= found[1]
    return classes, methods


def _similarity(golden: set[str], generated: set[str]) -> float:
    return 1.0 if not golden else len(golden & generated) / len(golden)


def measure_structure(
    workspace: Path, golden: Path | None = None, language: str = "", denominators: Mapping[str, object] | None = None
) -> StructureReport:
    """Measure ``workspace`` and, when ``golden`` is given, compare it with the golden solution.

    Args:
        workspace: The delivered repository.
        golden: The golden solution directory, if available.
        language: The task language (informational; detection is by file extension).
        denominators: The golden's size as a release states it (``total_code_files``, ``total_lines_of_code``:
            ``Task.meta`` of an ICAE-Bench task); each one given replaces the golden's own count.

    Returns:
        The :class:`StructureReport`; ratio fields are None without a golden or denominators, similarity fields
        None without a golden.
    """
    files = source_files(workspace)
    loc = sum(_loc(p) for p in files)
    classes, methods = _names(files)
    report: dict[str, Any] = {
        "files": len(files),
        "loc": loc,
        "classes": tuple(sorted(classes)),
        "methods": tuple(sorted(methods)),
    }
    golden_size: dict[str, int | None] = {"total_code_files": None, "total_lines_of_code": None}
    if golden is not None and golden.is_dir():
        golden_files = source_files(golden)
        golden_size.update(total_code_files=len(golden_files), total_lines_of_code=sum(_loc(p) for p in golden_files))
        golden_classes, golden_methods = _names(golden_files)
        report.update(class_sim=_similarity(golden_classes, classes), method_sim=_similarity(golden_methods, methods))
    golden_size.update(
        {k: v for k, v in (denominators or {}).items() if k in golden_size and isinstance(v, int) and v > 0}
    )
    golden_files_n, golden_loc = golden_size["total_code_files"], golden_size["total_lines_of_code"]
    report.update(
        golden_files=golden_files_n,
        golden_loc=golden_loc,
        file_ratio=len(files) / golden_files_n if golden_files_n else None,
        loc_ratio=loc / golden_loc if golden_loc else None,
    )
    return StructureReport(**report)
