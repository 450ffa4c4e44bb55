"""Fixtures of the fetch tests: one fake release per session, copied per test when a test changes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from icae_release import Release, build_release


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> Release:
    return build_release(tmp_path_factory.mktemp("release"))


@pytest.fixture
def own_release(release: Release, tmp_path: Path) -> Release:
    """A private copy of the release whose artifacts a test may replace."""
    mirror = tmp_path / "mirror"
    shutil.copytree(release.mirror, mirror)
    manifest = tmp_path / "manifest.json"
    shutil.copy(release.manifest, manifest)
    return Release(release.source, mirror, manifest)
