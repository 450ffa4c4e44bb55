"""Shared fixtures: sandboxes, task packs, the ICAE sample, a Ray cluster and the local model server."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

if os.environ.get("PYTEST_XDIST_WORKER"):  # one BLAS thread per worker: N workers on N cores, none spinning
    for _variable in ("ICAE_ENV_BLAS_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")

from local_model import local_model  # noqa: E402, F401 - the session's local model server
from packs import write_pack  # noqa: E402
from ray_cluster import ray_cluster, ray_cluster_env  # noqa: E402, F401 - the session's Ray cluster

from icae_env.sandbox import available_backends, make_sandbox  # noqa: E402
from icae_env.tasks import load_task  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ICAE_SAMPLE = SHARED / "icae-sample"


@pytest.fixture(scope="session", autouse=True)
def cache_dir(tmp_path_factory):
    """The session's icae-env cache (cross-encoder logits): empty at the start, shared with the scripts tests run.

    Under pytest-xdist every worker shares one cache (in the run's base temp dir), so a logit one worker computed is
    read back by the others; SQLite's locking lets them write it together.
    """
    from icae_env.user_agent.models.logit_store import CACHE_VARIABLE

    if CACHE_VARIABLE not in os.environ:  # a cache named by the caller is kept
        base = tmp_path_factory.getbasetemp()
        cache = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "icae-env-cache"
        cache.mkdir(parents=True, exist_ok=True)
        os.environ[CACHE_VARIABLE] = str(cache)
    return os.environ[CACHE_VARIABLE]


@pytest.fixture
def local_sandbox():
    box = make_sandbox("local")
    box.start()
    yield box
    box.close()


@pytest.fixture(params=available_backends())
def any_sandbox(request):
    box = make_sandbox(request.param)
    box.start()
    yield box
    box.close()


@pytest.fixture
def mini_pack(tmp_path: Path) -> Path:
    return write_pack(tmp_path / "packs")


@pytest.fixture
def mini_task(mini_pack: Path):
    return load_task(mini_pack)


@pytest.fixture
def icae_sample() -> Path:
    if not ICAE_SAMPLE.is_dir():
        pytest.skip("../shared/icae-sample is absent")
    return ICAE_SAMPLE
