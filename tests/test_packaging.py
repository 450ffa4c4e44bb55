"""The wheel installs one top-level package, icae_env, with wrappers/, baselines/ and configs/ mapped into it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python >= 3.11")

ROOT = Path(__file__).resolve().parents[1]
MAPPED = {"icae_env.wrappers": "wrappers", "icae_env.baselines": "baselines", "icae_env.configs": "configs"}
SKIP = ("builtin", "golden", "blocks")  # task data (built-in tasks, family goldens), shipped as package data


def _declared() -> list[str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]


def test_every_package_folder_is_declared_and_mapped():
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "icae_env").rglob("__init__.py")
        if not any(part in SKIP for part in p.parts)
    }
    assert set(_declared()) == found | set(MAPPED)
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    assert mapping == MAPPED and all((ROOT / folder / "__init__.py").is_file() for folder in MAPPED.values())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out, source = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("source") / "icae-env"
    ignored = shutil.ignore_patterns(".git", ".venv", "build", "dist", "runs", "*.egg-info", "__pycache__", ".*_cache")
    shutil.copytree(ROOT, source, ignore=ignored)  # a clean checkout: the build leaves nothing in the repository
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out)]
    result = subprocess.run([*command, str(source)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    [built] = out.glob("icae_env-*.whl")
    return built


def test_the_wheel_has_one_top_level_package(wheel: Path):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"icae_env"}
    for member in (
        "icae_env/wrappers/text_actions.py",
        "icae_env/baselines/oracle_agent.py",
        "icae_env/configs/default.yaml",
        "icae_env/user_agent/models/static_encoder.npz",
        "icae_env/user_agent/models/cross_encoder.npz",  # the default router's cross-encoder
    ):
        assert member in names
    assert any(n.startswith("icae_env/tasks/builtin/unidiff/cases/native/") for n in names)
    top_level = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
    assert zipfile.ZipFile(wheel).read(top_level).decode().split() == ["icae_env"]


@pytest.fixture(scope="module")
def site(wheel: Path, tmp_path_factory) -> Path:
    """The wheel installed into a folder of its own."""
    target = tmp_path_factory.mktemp("site")
    install = [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)]
    assert subprocess.run(install, capture_output=True, text=True, timeout=600).returncode == 0
    return target


#: Modules that fit or evaluate the User Agent's models: they live in benchmarks/router_fit/, not in the wheel.
FITTING = ("gate_fit", "distill", "encoder_distill", "cross_encoder_fit", "evaluation", "fits", "labelled", "labels")
FITTING += ("trigger_eval", "trigger_quality", "router_fit")


def test_the_wheel_has_no_fitting_evaluation_or_http_module_in_the_user_agent(wheel: Path):
    names = zipfile.ZipFile(wheel).namelist()
    stems = {Path(n).stem for n in names if n.endswith(".py")} | {p for n in names for p in Path(n).parts[:-1]}
    assert not stems & set(FITTING), stems & set(FITTING)
    user_agent = [n for n in names if n.startswith("icae_env/user_agent/") and n.endswith(".py")]
    assert len(user_agent) > 15
    for name in user_agent:
        source = zipfile.ZipFile(wheel).read(name).decode()
        assert "http.server" not in source, name
        assert "from benchmarks" not in source and "import benchmarks" not in source, name


def _lint_imports(folder: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"]
    command += [str(ROOT / "pyproject.toml"), "--no-cache"]
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def test_the_installed_package_keeps_its_import_layers(site: Path, tmp_path: Path):
    """The import-linter contracts of pyproject.toml hold, and a cycle added on purpose breaks them."""
    kept = _lint_imports(site)
    assert kept.returncode == 0 and "3 kept, 0 broken" in kept.stdout, kept.stdout + kept.stderr
    cycled = tmp_path / "site"
    shutil.copytree(site / "icae_env", cycled / "icae_env")
    models = cycled / "icae_env" / "tasks" / "models.py"
    models.write_text(models.read_text() + "\nimport icae_env.kinds  # noqa: E402 - a cycle: kinds imports tasks\n")
    broken = _lint_imports(cycled)
    assert broken.returncode == 1 and "Sub-packages import downwards only BROKEN" in broken.stdout, broken.stdout
    assert "icae_env.tasks.models -> icae_env.kinds" in broken.stdout


def test_the_installed_wheel_imports_its_mapped_packages(site: Path, tmp_path: Path):
    target = site
    site_text = repr(str(target))
    code = (
        "import icae_env, icae_env.wrappers as w, icae_env.baselines.oracle_agent as o\n"
        "from icae_env.wrappers import TextActions\n"
        "from icae_env.config import load_config, RunConfig\n"
        "import importlib.util\n"
        f"assert icae_env.__file__.startswith({site_text}), icae_env.__file__\n"
        f"assert w.__file__.startswith({site_text}) and o.__file__.startswith({site_text})\n"
        "assert importlib.util.find_spec('wrappers') is None and importlib.util.find_spec('baselines') is None\n"
        "assert load_config('default') == RunConfig()\n"
        "from icae_env.user_agent.models.cross_encoder import SHIPPED_PATH, load_cross_encoder\n"
        f"assert str(SHIPPED_PATH).startswith({site_text}) and len(load_cross_encoder(SHIPPED_PATH).members) == 3\n"
        "print('ok', TextActions.__name__)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "ok TextActions", result.stderr
