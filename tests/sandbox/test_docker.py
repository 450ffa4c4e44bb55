"""Docker backend specifics: containment, cleanup, the warm pool, reaping after SIGKILL, parity with local."""

import signal
import subprocess
import sys
import time

import pytest
from gymnasium.utils.env_checker import check_env
from interrupt import default_sigint

import icae_env
from icae_env.sandbox import available_backends, make_sandbox
from icae_env.sandbox.docker import flush_cleanup
from icae_env.tasks import list_tasks

pytestmark = [
    pytest.mark.docker,
    pytest.mark.skipif("docker" not in available_backends(), reason="no Docker engine or base image here"),
]


def _labelled_containers(owner: int | None = None) -> list[str]:
    query = ["docker", "ps", "-a", "-q", "--filter", "label=icae-env=1"]
    if owner is not None:
        query += ["--filter", f"label=icae-env.owner-pid={owner}"]
    return subprocess.run(query, capture_output=True, text=True, check=True).stdout.split()


def test_no_network_and_limits():
    with make_sandbox("docker", memory="256m", pids_limit=64) as box:
        net = box.exec("python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), timeout=2)'")
        assert net.exit_code != 0 and "Network is unreachable" in net.stderr
        hog = box.exec("python3 -c 'x = bytearray(1024 ** 3); print(len(x))'", timeout=30)
        assert hog.exit_code == 137 and "1073741824" not in hog.stdout
        burst = box.exec("for i in $(seq 200); do sleep 20 & done 2>&1; wait", timeout=3)
        assert burst.timed_out and "Resource temporarily unavailable" in burst.stdout + burst.stderr
        assert box.exec("echo alive").stdout == "alive\n"


def test_env_survives_a_memory_hog_and_a_fork_burst():
    env = icae_env.make(
        "icae/ProjectBuild-v0",
        task="builtin/unidiff",
        sandbox="docker",
        sandbox_options={"memory": "256m", "pids_limit": 64},
    )
    try:
        env.reset(seed=0)
        hog = env.step({"tool": "bash", "command": "python3 -c 'x = bytearray(1024 ** 3)'", "timeout": 30})[0]
        assert hog["exit_code"] == 137
        burst = env.step({"tool": "bash", "command": "for i in $(seq 200); do sleep 20 & done; wait", "timeout": 3})
        assert burst[4]["action_error"] and "timed out" in burst[4]["action_error"]
        assert env.step({"tool": "bash", "command": "echo ok"})[0]["output"] == "ok\n"
        container = env.unwrapped._state.sandbox.container.name
    finally:
        env.close()
    flush_cleanup()
    assert subprocess.run(["docker", "inspect", container], capture_output=True).returncode != 0


def test_close_removes_container_and_files():
    box = make_sandbox("docker")
    box.start()
    name, root = box.container.name, box.host_workspace.parent
    box.exec("sleep 100 &")
    box.close()
    box.close()
    flush_cleanup()
    assert subprocess.run(["docker", "inspect", name], capture_output=True).returncode != 0
    assert not root.exists()


def test_warm_pool_hands_out_a_ready_container():
    from icae_env.sandbox.docker import drain_pools, warm_pool_size

    first = make_sandbox("docker", warm_pool=1)
    try:
        first.start()
        deadline = time.monotonic() + 30
        while warm_pool_size(first) < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert warm_pool_size(first) == 1
        second = make_sandbox("docker", warm_pool=1)
        second.start()
        assert warm_pool_size(second) == 0 or second.container.name != first.container.name
        assert second.exec("pwd").stdout == "/workspace\n"
        second.close()
    finally:
        first.close()
        drain_pools()
        flush_cleanup()
    assert _labelled_containers(owner=__import__("os").getpid()) == []


RUNNER = """
import sys, icae_env
env = icae_env.make("icae/ProjectBuild-v0", task="builtin/config-lint", sandbox="docker")
env.reset(seed=0)
env.step({"tool": "bash", "command": "echo started"})
print("ready", flush=True)
env.step({"tool": "bash", "command": "sleep 300"})
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_sigint_remove_containers(signum):
    proc = subprocess.Popen(
        [sys.executable, "-c", RUNNER], stdout=subprocess.PIPE, text=True, preexec_fn=default_sigint
    )
    assert proc.stdout.readline().strip() == "ready"
    assert len(_labelled_containers(owner=proc.pid)) == 1
    proc.send_signal(signum)
    assert proc.wait(timeout=60) != 0
    assert _labelled_containers(owner=proc.pid) == []


SWALLOWING_RUNNER = """
import icae_env
env = icae_env.make("icae/ProjectBuild-v0", task="builtin/config-lint", sandbox="docker")
env.reset(seed=0)
env.step({"tool": "bash", "command": "echo started"})
try:  # "ready" is printed inside: a SIGTERM right after it must not end the process
    print("ready", flush=True)
    env.step({"tool": "bash", "command": "sleep 300"})
except SystemExit:  # as a test runner does: the exit fails one test, and the session goes on
    env.close()
    print("swallowed", flush=True)
while True:  # and every later one too
    try:
        __import__("time").sleep(300)
    except SystemExit:
        pass
"""


def test_second_sigterm_ends_a_process_that_swallowed_the_first():
    proc = subprocess.Popen([sys.executable, "-c", SWALLOWING_RUNNER], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGTERM)
        assert proc.stdout.readline().strip() == "swallowed"
        deadline = time.monotonic() + 30  # close() removes the container in the background, the process alive
        while _labelled_containers(owner=proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _labelled_containers(owner=proc.pid) == []
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == -signal.SIGTERM  # SIGTERM's default action, not another SystemExit
    finally:
        proc.kill()


@pytest.mark.slow
def test_reap_after_sigkilled_runners():
    pids = []
    for _ in range(4):
        procs = [subprocess.Popen([sys.executable, "-c", RUNNER], stdout=subprocess.PIPE, text=True) for _ in range(5)]
        for proc in procs:
            assert proc.stdout.readline().strip() == "ready"
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            pids.append(proc.pid)
    assert len(pids) == 20
    leftovers = [c for pid in pids for c in _labelled_containers(owner=pid)]
    assert leftovers, "a SIGKILLed runner cannot clean up; reap must"
    result = subprocess.run([sys.executable, "-m", "icae_env.cli", "docker", "reap"], capture_output=True, text=True)
    assert result.returncode == 0 and "removed" in result.stdout
    assert [c for pid in pids for c in _labelled_containers(owner=pid)] == []


@pytest.mark.slow
@pytest.mark.parametrize("name", list_tasks())
def test_check_env_and_oracle_match_local(name):
    from baselines.oracle_agent import OracleAgent
    from icae_env.run import run_suite

    env = icae_env.make("icae/ProjectBuild-v0", task=name, sandbox="docker")
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()
    docker = run_suite(OracleAgent, [name], ("L1",), env_kwargs={"sandbox": "docker"}, progress=False)[0]
    local = run_suite(OracleAgent, [name], ("L1",), progress=False)[0]
    assert docker.error is None and local.error is None
    fields = ("overall", "public", "native", "enhanced", "task_coverage", "reward")
    assert {f: getattr(docker, f) for f in fields} == {f: getattr(local, f) for f in fields}
    assert docker.overall == 1.0
