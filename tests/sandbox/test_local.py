"""Local-backend specifics: bubblewrap isolation, the unisolated fallback, crash cleanup."""

import logging
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from icae_env.errors import SandboxError
from icae_env.sandbox import session
from icae_env.sandbox.local import TEMP_PREFIX, LocalSandbox, bwrap_available, reap_stale_dirs

needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap is not installed")

_HIGH_FD = 1100  # select() cannot watch a descriptor >= 1024 (FD_SETSIZE)


@pytest.fixture
def low_fds_taken():
    """Occupy every descriptor number below ``_HIGH_FD`` so that the next pipes are numbered above 1023."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = _HIGH_FD + 64
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"RLIMIT_NOFILE hard limit {hard} < {needed}")
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    dummies = [os.open(os.devnull, os.O_RDONLY)]
    try:
        while dummies[-1] < _HIGH_FD:
            dummies.append(os.dup(dummies[0]))
        yield
    finally:
        for fd in dummies:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@needs_bwrap
def test_bwrap_isolation():
    with LocalSandbox(isolation="bwrap") as box:
        assert box.workdir == "/workspace"
        assert box.exec("touch /usr/x").exit_code != 0
        assert box.exec("touch /workspace/ok && touch /tmp/ok").exit_code == 0
        pack_dir = Path(__file__).resolve().parents[2]
        assert box.exec(f"ls {pack_dir}").exit_code != 0, "the project (and task packs) must be invisible"
        net = box.exec("python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), timeout=2)'")
        assert net.exit_code != 0 and "Network is unreachable" in net.stderr
        assert box.exec("ls /etc/shadow").exit_code != 0
        assert box.exec("python3 -c 'print(1)' && node -e 'console.log(2)'").stdout == "1\n2\n"


@pytest.mark.parametrize("isolation", ["auto", "none"])
def test_session_works_on_descriptors_above_1023(low_fds_taken, isolation):
    with LocalSandbox(isolation=isolation) as box:
        assert box._session is not None and box._session._proc is not None
        assert box._session._proc.stdout.fileno() > 1023, "the test must put the session's pipes above FD_SETSIZE"
        result = box.exec("echo hi; echo err >&2; (exit 3)")
        assert (result.stdout, result.stderr, result.exit_code) == ("hi\n", "err\n", 3)
        timed_out = box.exec("sleep 30", timeout=0.3)
        assert timed_out.timed_out and not timed_out.session_restarted
        assert box.exec("exit 5").session_restarted
        again = box.exec("echo again")
        assert (again.stdout, again.exit_code, again.session_restarted) == ("again\n", 0, False)


def test_close_releases_every_descriptor():
    before = sorted(os.listdir("/proc/self/fd"))
    for _ in range(3):
        with LocalSandbox() as box:
            box.exec("true")
            box.exec("exit 1")  # a restarted session must not keep the first one's pipes either
            box.exec("true")
    assert sorted(os.listdir("/proc/self/fd")) == before


def test_descendants_walk_matches_the_proc_scan(monkeypatch):
    # four descendants at two depths: sleep, bash, and that bash's two sleeps (the trailing true keeps it a bash)
    proc = subprocess.Popen(["bash", "-c", "sleep 30 & bash -c 'sleep 30 & sleep 30; true' & wait"])
    try:
        deadline = time.monotonic() + 5
        while len(session.descendants(proc.pid)) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        walked = sorted(session.descendants(proc.pid))
        monkeypatch.setattr(session, "_PROC_CHILDREN", False)
        assert len(walked) == 4 and sorted(session.descendants(proc.pid)) == walked
    finally:
        session.kill_tree(proc.pid, include_root=True)
        proc.wait()


def test_unisolated_fallback_still_scrubs_and_cleans(caplog):
    with LocalSandbox(isolation="none") as box:
        assert box.workdir == str(box.host_workspace)
        assert box.exec("pwd").stdout.strip() == box.workdir
        root = box.host_workspace.parent
    assert not root.exists()


def test_options_are_validated():
    with pytest.raises(ValueError, match="isolation must be"):
        LocalSandbox(isolation="chroot")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="default_timeout must be > 0, got -1"):
        LocalSandbox(default_timeout=-1)
    with pytest.raises(SandboxError, match="not started"):
        LocalSandbox().host_workspace  # noqa: B018


def test_missing_bwrap_warns(monkeypatch, caplog):
    monkeypatch.setattr("icae_env.sandbox.local.bwrap_available", lambda: False)
    with caplog.at_level(logging.WARNING):
        box = LocalSandbox()
    assert not box.isolated and "without isolation" in caplog.text
    with pytest.raises(SandboxError, match="apt-get install bubblewrap"):
        LocalSandbox(isolation="bwrap")


def test_killed_owner_leaves_nothing_after_reap(tmp_path):
    marker = f"sleep 300.{os.getpid()}{time.monotonic_ns() % 1000:03d}"  # no other process's command line has it
    code = (
        "import os, time\n"
        "from icae_env.sandbox.local import LocalSandbox\n"
        f"box = LocalSandbox(); box.start(); box.exec('{marker} > /dev/null 2>&1 &')\n"
        "print(box.host_workspace.parent, flush=True); time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    root = Path(proc.stdout.readline().strip())
    assert root.name.startswith(TEMP_PREFIX) and root.exists()
    proc.kill()
    proc.wait()
    proc.stdout.close()
    time.sleep(0.3)
    reap_stale_dirs()
    assert not root.exists()
    if bwrap_available():
        leftover = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout
        assert leftover == "", "bwrap --die-with-parent must take the sandbox's processes down"


def test_exec_starts_lazily():
    box = LocalSandbox()
    try:
        assert box.exec("echo lazy").stdout == "lazy\n"
    finally:
        box.close()
    assert os.path.exists("/tmp")


@needs_bwrap
def test_directories_under_system_paths_are_masked(tmp_path):
    secret_dir = Path("/usr/local/share/icae-test-secret")
    secret_dir.mkdir(parents=True, exist_ok=True)
    try:
        (secret_dir / "hidden.json").write_text('{"expected_output": "leak"}')
        with LocalSandbox(isolation="bwrap", hide=[str(secret_dir)]) as box:
            assert box.exec(f"ls {secret_dir}").stdout == ""
        with LocalSandbox(isolation="bwrap") as box:
            assert box.exec(f"ls {secret_dir}").stdout == "hidden.json\n"
    finally:
        import shutil

        shutil.rmtree(secret_dir)
