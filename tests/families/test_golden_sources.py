"""Family goldens are real source files: composed for two value assignments per family, they type-check and parse.

Ruff lints the files on disk (``tests/test_code_quality.py``); blocks are fragments of a rules module, so the composed
packages are what mypy checks here (one run over every family, each package under its own parent package).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from icae_env.families import family_names, get_family
from icae_env.families.golden_tree import read_blocks
from icae_env.families.spec import Family

CONSTANTS = {"dependency-order": {"ITEM": "package"}}


def _assignments(family: Family) -> list[dict[str, str]]:
    return [{d.name: d.values[pick].key for d in family.decisions} for pick in (0, -1)]


def _compose(root: Path, language: str) -> list[Path]:
    written = []
    for name in family_names():
        family = get_family(name)
        if language not in family.languages:
            continue
        for i, values in enumerate(_assignments(family)):
            parent = root / f"g_{name.replace('-', '_')}_{i}"
            for path, text in family.sources(values, language, CONSTANTS.get(name)).items():
                target = parent / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
                written.append(target)
            (parent / "__init__.py").write_text("", encoding="utf-8")
    return written


def test_every_block_of_every_decision_value_exists():
    for name in family_names():
        family = get_family(name)
        for language in family.languages:
            blocks = read_blocks(family.folder, language)
            for decision in family.decisions:
                assert set(blocks.get(decision.name, {})) == {v.key for v in decision.values}, (name, language)


def test_composed_python_goldens_type_check(tmp_path):
    _compose(tmp_path, "python")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--ignore-missing-imports", "."],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_composed_javascript_goldens_parse(tmp_path):
    files = [p for p in _compose(tmp_path, "javascript") if p.suffix == ".js"]
    assert files
    for path in files:
        run = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True, check=False)
        assert run.returncode == 0, (path, run.stderr[-2000:])
