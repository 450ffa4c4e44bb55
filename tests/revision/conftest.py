"""Fixtures of the revision tests: the mini pack and its task."""

from __future__ import annotations

from pathlib import Path

import pytest
from revision_packs import write_revision_pack

from icae_env.revision import RevisionTask, load_revision_pack


@pytest.fixture
def revision_pack(tmp_path: Path) -> Path:
    return write_revision_pack(tmp_path / "packs")


@pytest.fixture
def revision_task(revision_pack: Path) -> RevisionTask:
    return load_revision_pack(revision_pack)
