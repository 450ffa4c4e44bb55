"""A persistent bash session driven over pipes: the fast path behind every local ``exec``.

The host writes the command to a file in a control directory and sends one line that sources it with the
command's stdin, stdout and stderr redirected, then prints a marker carrying the exit status on the shell's own
stdout. Starting one shell per sandbox instead of one per command keeps ``exec`` close to a raw subprocess and
keeps ``cd`` and variables between commands. A time-out signals the shell (its trap abandons the rest of the
command) and kills the command's process tree; when the shell itself does not come back, the whole session is
killed and restarted on the next command.

The host waits for the shell's stdout with a ``poll`` object, not ``select()``, which cannot watch a descriptor
numbered 1024 or more: the number of live sessions in one process is bounded by memory and ``RLIMIT_NOFILE``, not
by descriptor numbers. A poll object holds no kernel descriptor of its own, so a session leaves nothing to close.
"""

from __future__ import annotations

import os
import secrets
import select
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["ShellSession", "descendants", "kill_tree"]

_GRACE_S = 1.0
_START_TIMEOUT_S = 30.0
_POLL_S = 0.25
# On time-out the host sends SIGUSR1: the trap returns from the sourced command file, skipping the rest.
_PRELUDE = b"trap 'return 124 2>/dev/null' USR1\n"


# Linux with CONFIG_PROC_CHILDREN (every major distribution) lists a task's children directly; without it the whole
# of /proc is scanned, in time proportional to every process on the machine (3000 with 1000 live local sandboxes).
_PROC_CHILDREN = os.path.exists("/proc/thread-self/children")


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def _children_of(pid: int) -> list[int]:
    """The live children of ``pid``, from ``/proc/<pid>/task/<tid>/children`` of each of its threads."""
    if not _PROC_CHILDREN:
        return _children_map().get(pid, [])
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as handle:
                found.extend(int(child) for child in handle.read().split())
        except OSError:
            continue
    return found


def descendants(pid: int) -> list[int]:
    """Return every live descendant of ``pid`` (host pids, any depth)."""
    tree = None if _PROC_CHILDREN else _children_map()
    found: list[int] = []
    seen = {pid}  # a live walk could meet a reused pid twice; it must not loop
    stack = [pid]
    while stack:
        parent = stack.pop()
        children = _children_of(parent) if tree is None else tree.get(parent, [])
        below = [child for child in children if child not in seen]
        seen.update(below)
        found.extend(below)
        stack.extend(below)
    return found


def kill_tree(pid: int, *, include_root: bool) -> None:
    """SIGKILL every descendant of ``pid`` (and ``pid`` itself when ``include_root``)."""
    targets = descendants(pid) + ([pid] if include_root else [])
    for target in targets:
        try:
            os.kill(target, signal.SIGKILL)
        except ProcessLookupError:
            pass


class ShellSession:
    """One long-lived ``bash`` reading commands from a pipe.

    Args:
        argv: The command that starts bash (possibly wrapped in bubblewrap).
        env: The scrubbed environment of the shell.
        cwd: Host working directory for the launcher.
        ctl_host: Host path of the control directory.
        ctl_inner: The control directory as the shell sees it.
        output_hard_limit: A command whose output files grow past this many bytes is killed.
        resolve_pid: Maps the shell's own ``$$`` (as seen in its pid namespace) to its host pid, for shells that
            are not descendants of the launcher (``docker exec``). By default the launcher's process tree is
            walked down to the first ``bash``.
        spawn: Starts the shell and returns a ``subprocess.Popen``-like handle (``stdin``, ``stdout``, ``pid``,
            ``poll``, ``wait``); by default ``argv`` is run as a subprocess.
    """

    def __init__(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        cwd: Path,
        ctl_host: Path,
        ctl_inner: str,
        output_hard_limit: int,
        resolve_pid: Callable[[int], int | None] | None = None,
        spawn: Callable[[], Any] | None = None,
    ) -> None:
        self._argv = list(argv)
        self._env = env
        self._cwd = cwd
        self._ctl_host = ctl_host
        self._ctl_inner = ctl_inner
        self._hard_limit = output_hard_limit
        self._proc: subprocess.Popen[bytes] | None = None
        self._nonce = secrets.token_hex(8).encode()
        self._buffer = b""
        self._resolve_pid = resolve_pid
        self._spawn = spawn
        self._host_shell: int | None = None
        self._poller: select.poll | None = None

    @property
    def alive(self) -> bool:
        """Whether the shell process is running."""
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start the shell if it is not running."""
        if self.alive:
            return
        self._buffer = b""
        if self._spawn is not None:
            self._proc = self._spawn()
        else:
            self._proc = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=self._cwd,
                env=self._env,
                start_new_session=True,
            )
        assert self._proc.stdin is not None and self._proc.stdout is not None  # noqa: S101
        self._poller = select.poll()
        self._poller.register(self._proc.stdout.fileno(), select.POLLIN)
        self._proc.stdin.write(_PRELUDE)
        self._host_shell = None
        if self._resolve_pid is not None:
            self._proc.stdin.write(f"printf '\\n%s %d\\n' {self._nonce.decode()} $$\n".encode())
        self._proc.stdin.flush()
        if self._resolve_pid is not None:
            inner = self._await_marker(time.monotonic() + _START_TIMEOUT_S)
            self._host_shell = self._resolve_pid(int(inner)) if inner and inner.isdigit() else None

    def run(self, command: str, timeout: float) -> tuple[int, str | None, bool, float]:
        """Run one command.

        Returns:
            ``(exit_code, killed_for, session_ended, duration_s)`` where ``killed_for`` is None, ``"timeout"`` or
            ``"output"`` (the output files passed the hard limit); stdout and stderr are in the control files.
        """
        self.start()
        assert self._proc is not None and self._proc.stdin is not None  # noqa: S101
        for name in ("out", "err"):  # the previous command's output must not count against this one
            with open(self._ctl_host / name, "wb"):
                pass
        (self._ctl_host / "cmd").write_text(command + "\n", encoding="utf-8", errors="surrogateescape")
        ctl = self._ctl_inner
        line = (
            f"{{ . {ctl}/cmd; }} </dev/null >{ctl}/out 2>{ctl}/err; "
            f"printf '\\n%s %d\\n' {self._nonce.decode()} \"$?\"\n"
        )
        started = time.monotonic()
        try:
            self._proc.stdin.write(line.encode())
            self._proc.stdin.flush()
        except BrokenPipeError:
            code, _, ended, duration = self._ended(started)
            return code, None, ended, duration
        return self._wait(started, started + timeout)

    def _wait(self, started: float, deadline: float) -> tuple[int, str | None, bool, float]:
        killed_for: str | None = None
        while True:
            now = time.monotonic()
            if killed_for is None and (now >= deadline or self._output_too_large()):
                killed_for = "timeout" if now >= deadline else "output"
                self._kill_command()
                deadline = now + _GRACE_S
            elif killed_for is not None and now >= deadline:
                self.kill()
                return 124, killed_for, True, time.monotonic() - started
            status = self._read_marker(min(_POLL_S, max(deadline - now, 0.0)))
            if status == "eof":
                code, _, ended, duration = self._ended(started)
                return (124 if killed_for else code), killed_for, ended, duration
            if status is not None:
                return (124 if killed_for else int(status)), killed_for, False, time.monotonic() - started

    def _await_marker(self, deadline: float) -> str | None:
        while time.monotonic() < deadline:
            status = self._read_marker(max(deadline - time.monotonic(), 0.0))
            if status == "eof":
                return None
            if status is not None:
                return status
        return None

    def _read_marker(self, wait: float) -> str | None:
        assert self._proc is not None and self._proc.stdout is not None and self._poller is not None  # noqa: S101
        fd = self._proc.stdout.fileno()
        if not self._poller.poll(wait * 1000.0):  # milliseconds; POLLHUP and POLLERR are always reported
            return None
        chunk = os.read(fd, 65536)
        if not chunk:
            return "eof"
        self._buffer += chunk
        key = b"\n" + self._nonce + b" "
        at = self._buffer.rfind(key)
        if at < 0 or not self._buffer.endswith(b"\n"):
            return None
        status = self._buffer[at + len(key) :].strip().decode()
        self._buffer = b""
        return status

    def _output_too_large(self) -> bool:
        for name in ("out", "err"):
            try:
                if os.stat(self._ctl_host / name).st_size > self._hard_limit:
                    return True
            except OSError:
                pass
        return False

    def _shell_pid(self) -> int | None:
        """Host pid of the bash process (below any bubblewrap launcher)."""
        assert self._proc is not None  # noqa: S101
        if self._resolve_pid is not None:
            return self._host_shell
        pid = self._proc.pid
        for _ in range(3):
            try:
                comm = Path(f"/proc/{pid}/comm").read_text().strip()
            except OSError:
                return None
            if comm == "bash":
                return pid
            children = _children_of(pid)
            if not children:
                return None
            pid = children[0]
        return None

    def _kill_command(self) -> None:
        """Abort the running command: its trap makes the shell return from the command file, children die."""
        shell = self._shell_pid()
        if shell is None:
            return
        try:
            os.kill(shell, signal.SIGUSR1)
        except ProcessLookupError:
            return
        kill_tree(shell, include_root=False)

    def _ended(self, started: float) -> tuple[int, None, bool, float]:
        assert self._proc is not None  # noqa: S101
        try:
            code = self._proc.wait(timeout=_GRACE_S)
        except subprocess.TimeoutExpired:
            self.kill()
            code = -9
        self._close_pipes()
        self._proc = self._poller = None
        return (code if code >= 0 else 128 - code), None, True, time.monotonic() - started

    def kill(self) -> None:
        """Kill the shell, its launcher and every process below them."""
        if self._proc is None:
            return
        for pid in {p for p in (self._proc.pid, self._host_shell) if p and p > 1}:
            kill_tree(pid, include_root=True)
        if self._proc.pid and self._proc.pid > 1:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self._close_pipes()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._proc = self._poller = None

    def _close_pipes(self) -> None:
        """Close the host's ends of the shell's pipes (an ended shell's too, so that no descriptor waits for GC)."""
        if self._proc is None:
            return
        for stream in (self._proc.stdin, self._proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
