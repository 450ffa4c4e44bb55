"""The servers the end-to-end tests talk to (started once per test module, stopped after it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    from servers import running_servers

    with running_servers(tmp_path_factory.mktemp("servers")) as started:
        yield started
