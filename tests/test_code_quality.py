"""Lint and type-check the package as part of the suite (ruff and mypy come with the test extra)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_clean():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "icae_env", "wrappers", "baselines"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_importing_the_contract_loads_only_registration_and_errors():
    """``import icae_env.core`` loads the package's __init__, registration, errors and nothing else of the package."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import icae_env.core"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    loaded = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    ours = {name for name in loaded if name.split(".")[0] == "icae_env"}
    assert ours == {"icae_env", "icae_env.registration", "icae_env.errors", "icae_env.core"}, sorted(ours)


#: A path to the folder beside the repository: ``../shared``, ``shared/...``, or one built with ``/ "shared"``.
SHARED_PATH = re.compile(r"\.\./shared|\bshared/|/\s*[\"']shared[\"']|[\"']shared[\"']\s*/")


def test_nothing_a_user_gets_names_the_folder_beside_the_repository():
    """Package, docs, examples and README never point at ``shared`` beside the checkout (tests may read its data)."""
    roots = [ROOT / d for d in ("icae_env", "wrappers", "baselines", "configs", "docs", "examples")]
    files = [p for r in roots for p in r.rglob("*") if p.suffix in (".py", ".md", ".yaml", ".txt", ".example")]
    offenders = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in [*files, ROOT / "README.md"]
        for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1)
        if SHARED_PATH.search(line)
    ]
    assert offenders == []


def test_no_package_module_is_over_400_lines():
    """Small modules: family goldens (the programs a task asks for) are the only exception."""
    roots = [ROOT / d for d in ("icae_env", "wrappers", "baselines", "configs")]
    sizes = {
        p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines())
        for r in roots
        for p in r.rglob("*.py")
        if "builtin" not in p.parts and not {"golden", "blocks"} & set(p.parts)
    }
    assert {path: n for path, n in sizes.items() if n > 400} == {}
