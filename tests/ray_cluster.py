"""A real Ray cluster for the tests, started once per session as an operator would (`ray start --head`).

The fixture starts `ray start --head --block` as its own process group (temp dir, free ports, 2 CPUs, token
authentication with a token of its own) and stops it by that process group's id, never with a machine-wide
`ray stop`, so that other Ray clusters on the machine (another test run, another user) survive.
If the test process is killed, the cluster gets SIGTERM (PR_SET_PDEATHSIG) and stops; its temp dir is removed by
the next run's fixture.

Every Ray test in the suite joins this cluster: Ray caches its authentication mode per process, so a driver that
once joined a token cluster cannot later start a fresh local cluster in the same process.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

HAS_RAY = importlib.util.find_spec("ray") is not None
RAY_BIN = Path(sys.executable).with_name("ray")


def _free_ports(n: int) -> list[int]:
    """Return ``n`` distinct free ports (every probe stays bound until all are chosen, so none repeats)."""
    probes = [socket.socket() for _ in range(n)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


def _die_with_the_parent() -> None:
    """In the child before exec: SIGTERM when the test process dies (killed runs leave no cluster behind)."""
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG; `ray start --block` stops its cluster on SIGTERM


def _stop_group(proc: subprocess.Popen) -> None:
    """Stop the `ray start` process and everything it started (its own process group), by id."""
    for sig, wait_s in ((signal.SIGTERM, 3), (signal.SIGKILL, 30)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            continue
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        time.sleep(0.2)


def _reap_orphaned_temp_dirs() -> None:
    """Remove the temp dirs of earlier test clusters whose test process is gone (a killed run cannot clean up)."""
    for temp in Path(tempfile.gettempdir()).glob("icae-ray-*"):
        owner = temp / "owner.pid"
        try:
            os.kill(int(owner.read_text()), 0)
        except ProcessLookupError:
            shutil.rmtree(temp, ignore_errors=True)
        except (OSError, ValueError):  # no owner file yet (being created) or not ours to judge
            continue


@pytest.fixture(scope="session")
def ray_cluster_env():
    """A separate 2-CPU Ray cluster, started as an operator would; yields the environment a driver needs."""
    if not HAS_RAY:
        pytest.skip("ray is not installed")
    _reap_orphaned_temp_dirs()
    temp = Path(tempfile.mkdtemp(prefix="icae-ray-"))  # short: Ray's socket paths must fit in 107 bytes
    (temp / "owner.pid").write_text(str(os.getpid()))
    flags = ("--port", "--ray-client-server-port", "--dashboard-port", "--dashboard-agent-listen-port")
    flags += ("--dashboard-agent-grpc-port", "--metrics-export-port", "--runtime-env-agent-port")
    ports = dict(zip(flags, _free_ports(len(flags)), strict=True))
    port = ports["--port"]
    command = [str(RAY_BIN), "start", "--head", "--block", "--num-cpus=2", "--include-dashboard=false"]
    command += [f"--temp-dir={temp}", "--object-store-memory=200000000", "--disable-usage-stats"]
    command += [f"{flag}={value}" for flag, value in ports.items()]
    auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16)}  # a token of its own, not ~/.ray's
    log = open(temp / "ray-start.log", "w")  # noqa: SIM115 - closed in the finaliser
    env = {**os.environ, **auth}
    proc = subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True, preexec_fn=_die_with_the_parent
    )
    try:
        deadline = time.monotonic() + 120
        while "Ray runtime started" not in (temp / "ray-start.log").read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("ray start --head failed:\n" + (temp / "ray-start.log").read_text()[-3000:])
            time.sleep(0.5)
        client = f"ray://127.0.0.1:{ports['--ray-client-server-port']}"
        yield {"RAY_ADDRESS": f"127.0.0.1:{port}", "ICAE_TEST_RAY_CLIENT": client, **auth}
    finally:
        _stop_group(proc)
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture
def ray_cluster(ray_cluster_env, monkeypatch):
    """Point this test's drivers at the started cluster (RAY_ADDRESS and its token); yields its GCS address."""
    for name, value in ray_cluster_env.items():
        monkeypatch.setenv(name, value)
    return ray_cluster_env["RAY_ADDRESS"]
