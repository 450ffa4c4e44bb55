"""The sandbox contract, run against every backend available on this machine."""

import sys
import time
from pathlib import Path

import pytest

from icae_env.errors import SandboxPathError
from icae_env.sandbox import Sandbox, make_sandbox


def test_implements_protocol(any_sandbox):
    assert isinstance(any_sandbox, Sandbox)


def test_exec_reports_output_and_status(any_sandbox):
    result = any_sandbox.exec("echo out; echo err >&2; exit_code=3; (exit 3)")
    assert (result.stdout, result.stderr, result.exit_code) == ("out\n", "err\n", 3)
    assert not result.timed_out and not result.ok


def test_session_keeps_cwd_and_variables(any_sandbox):
    any_sandbox.exec("mkdir -p sub && cd sub && export GREETING=hello")
    result = any_sandbox.exec('pwd; echo "$GREETING"')
    assert result.stdout == f"{any_sandbox.workdir}/sub\nhello\n"


def test_timeout_kills_process_tree_and_session_survives(any_sandbox):
    any_sandbox.exec("export KEEP=1")
    started = time.monotonic()
    result = any_sandbox.exec("sleep 60 & sleep 60; echo never", timeout=0.5)
    assert result.timed_out and result.exit_code == 124
    assert time.monotonic() - started < 5
    assert "never" not in result.stdout
    assert any_sandbox.exec('echo $KEEP; pgrep -c -f "sleep 60" || true').stdout == "1\n0\n"


def test_busy_builtin_loop_is_aborted_and_session_kept(any_sandbox):
    any_sandbox.exec("export KEEP=2")
    result = any_sandbox.exec("while :; do :; done; echo never", timeout=0.5)
    assert result.timed_out and not result.session_restarted and "never" not in result.stdout
    assert any_sandbox.exec("echo $KEEP").stdout == "2\n"


def test_shell_that_ignores_the_abort_is_restarted(any_sandbox):
    any_sandbox.exec("export KEEP=3")
    result = any_sandbox.exec("trap '' USR1; while :; do :; done", timeout=0.5)
    assert result.timed_out and result.session_restarted
    assert any_sandbox.exec("echo alive $KEEP").stdout == "alive\n"


def test_exit_ends_session_then_restarts(any_sandbox):
    any_sandbox.exec("cd / ")
    result = any_sandbox.exec("exit 7")
    assert (result.exit_code, result.session_restarted) == (7, True)
    assert any_sandbox.exec("pwd").stdout.strip() == any_sandbox.workdir


def test_output_is_capped_head_and_tail(any_sandbox):
    result = any_sandbox.exec("echo START; head -c 300000 /dev/zero | tr '\\0' x; echo; echo END")
    assert result.truncated
    assert result.stdout.startswith("START\n") and result.stdout.endswith("END\n")
    assert "bytes omitted" in result.stdout and len(result.stdout) < 70_000


def test_invalid_utf8_never_raises(any_sandbox):
    result = any_sandbox.exec("printf 'a\\xff\\xfeb'; printf '\\xc3' >&2")
    assert result.stdout == "a\ufffd\ufffdb" and result.stderr == "\ufffd"


def test_environment_is_scrubbed(any_sandbox, monkeypatch):
    monkeypatch.setenv("ICAE_SECRET_TOKEN", "leak")
    box = make_sandbox(any_sandbox.name)
    with box:
        env = box.exec("env").stdout
    assert "ICAE_SECRET_TOKEN" not in env and "PATH=" in env


def test_file_round_trip_and_copy(any_sandbox, tmp_path):
    any_sandbox.write_file("a/b.txt", "héllo")
    assert any_sandbox.read_file("a/b.txt") == "héllo".encode()
    assert any_sandbox.read_file(f"{any_sandbox.workdir}/a/b.txt") == "héllo".encode()
    assert any_sandbox.exec("cat a/b.txt").stdout == "héllo"
    src = tmp_path / "src"
    (src / "d").mkdir(parents=True)
    (src / "d" / "f.txt").write_text("x")
    any_sandbox.copy_in(src, "copied")
    assert any_sandbox.exec("cat copied/d/f.txt").stdout == "x"
    any_sandbox.copy_out("copied", tmp_path / "back")
    assert (tmp_path / "back" / "d" / "f.txt").read_text() == "x"


@pytest.mark.parametrize("path", ["../escape.txt", "/etc/passwd", "a/../../x", ""])
def test_paths_cannot_escape(any_sandbox, path):
    with pytest.raises(SandboxPathError):
        any_sandbox.write_file(path, "x")


def test_symlink_escape_is_refused(any_sandbox):
    any_sandbox.exec("ln -s /etc link")
    with pytest.raises(SandboxPathError, match="escapes"):
        any_sandbox.read_file("link/hostname")


def test_bad_arguments_raise_typed_errors(any_sandbox):
    with pytest.raises(TypeError, match="command must be a str"):
        any_sandbox.exec(["ls"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timeout must be > 0"):
        any_sandbox.exec("true", timeout=0)


def test_close_twice_removes_everything(any_sandbox):
    any_sandbox.exec("sleep 100 &")
    host = Path(any_sandbox.host_workspace) if hasattr(any_sandbox, "host_workspace") else None
    any_sandbox.close()
    any_sandbox.close()
    getattr(sys.modules[type(any_sandbox).__module__], "flush_cleanup", lambda: None)()  # async removal (docker)
    if host is not None:
        assert not host.parent.exists()


def test_unknown_backend_suggests():
    with pytest.raises(ValueError, match="did you mean 'local'"):
        make_sandbox("locl")


def test_symlink_swapped_in_after_the_check_is_refused(any_sandbox, tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    any_sandbox.exec("mkdir -p d")
    checked = type(any_sandbox)._host_path

    def check_then_swap(self, path):
        resolved = checked(self, path)
        host_d = self.host_workspace / "d"
        host_d.rmdir()
        host_d.symlink_to(outside)  # the race: a background process swaps the directory for a symlink
        return resolved

    monkeypatch.setattr(type(any_sandbox), "_host_path", check_then_swap)
    with pytest.raises(SandboxPathError, match="symlink"):
        any_sandbox.write_file("d/x.txt", "escape")
    assert not (outside / "x.txt").exists()
