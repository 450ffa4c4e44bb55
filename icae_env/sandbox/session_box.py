"""Shared machinery of backends whose workspace is a host directory driven by a persistent shell session.

Subclasses implement ``start()`` (create the root with :meth:`SessionSandbox._make_root`, launch the session)
and may extend ``close()``; ``exec``, the file operations, output capping and cleanup live here.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from pathlib import Path

from icae_env.errors import ArgumentError, ArgumentTypeError, SandboxError
from icae_env.sandbox.base import DEFAULT_OUTPUT_LIMIT, TRUNCATION_MARKER, ExecResult
from icae_env.sandbox.hostfs import HostWorkspace
from icae_env.sandbox.session import ShellSession
from icae_env.sandbox.snapshot import TEMP_PREFIX

__all__ = ["SessionSandbox", "TEMP_PREFIX", "new_root", "reap_stale_dirs"]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def reap_stale_dirs(base: str | None = None) -> int:
    """Remove temp sandboxes left by processes that no longer exist (for example after SIGKILL).

    Runs before every new sandbox, so it stays cheap with many live ones: this process's own directories and
    owners already checked are skipped without a system call.

    Returns:
        How many directories were removed.
    """
    base_dir = base or tempfile.gettempdir()
    alive = {os.getpid(): True}
    removed = 0
    try:
        with os.scandir(base_dir) as scan:
            names = [entry.name for entry in scan if entry.name.startswith(TEMP_PREFIX)]
    except OSError:
        return 0
    for name in names:
        pid_text = name[len(TEMP_PREFIX) :].split("-", 1)[0]
        if not pid_text.isdigit():
            continue
        pid = int(pid_text)
        if pid not in alive:
            alive[pid] = _pid_alive(pid)
        if not alive[pid]:
            shutil.rmtree(os.path.join(base_dir, name), ignore_errors=True)
            removed += 1
    return removed


def new_root() -> Path:
    """Create a temp sandbox root (named after this process) holding ``workspace/`` and ``ctl/``."""
    reap_stale_dirs()
    root = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
    (root / "workspace").mkdir()
    (root / "ctl").mkdir()
    return root


class SessionSandbox(HostWorkspace):
    """Base class: a temp root holding ``workspace/`` and ``ctl/``, and one :class:`ShellSession`.

    Args:
        default_timeout: Seconds a command may run when ``exec`` gets no timeout.
        output_limit: Bytes of stdout and of stderr kept per command (head + tail around a marker).
    """

    name = "session"
    workdir = ""

    def __init__(self, default_timeout: float = 120.0, output_limit: int = DEFAULT_OUTPUT_LIMIT) -> None:
        if default_timeout <= 0:
            raise ArgumentError(f"default_timeout must be > 0, got {default_timeout!r}")
        if output_limit < 64:
            raise ArgumentError(f"output_limit must be >= 64 bytes, got {output_limit!r}")
        self.default_timeout = default_timeout
        self.output_limit = output_limit
        self._root: Path | None = None
        self._session: ShellSession | None = None
        self._finalizer: weakref.finalize | None = None

    def start(self) -> None:
        """Create the workspace and start the shell (idempotent)."""
        raise NotImplementedError

    def _make_root(self) -> Path:
        root = new_root()
        self._root = root
        self._finalizer = weakref.finalize(self, shutil.rmtree, str(root), True)
        return root

    def close(self) -> None:
        """Kill every process of the sandbox and delete its files; safe to call twice."""
        session, self._session = self._session, None
        if session is not None:
            session.kill()
        if self._finalizer is not None:
            self._finalizer()
        self._root = None

    def __enter__(self) -> SessionSandbox:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def host_workspace(self) -> Path:
        """Host path of the workspace directory."""
        if self._root is None:
            raise SandboxError("sandbox is not started; call start() first")
        return self._root / "workspace"

    def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        """Run ``command`` in the session; see :meth:`Sandbox.exec`.

        Raises:
            TypeError: if ``command`` is not a string.
            ValueError: if ``timeout`` is not positive.
        """
        if not isinstance(command, str):
            raise ArgumentTypeError(f"command must be a str, got {type(command).__name__}")
        if timeout is not None and timeout <= 0:
            raise ArgumentError(f"timeout must be > 0 seconds, got {timeout!r}")
        if self._session is None:
            self.start()
        assert self._session is not None and self._root is not None  # noqa: S101
        limit = timeout or self.default_timeout
        code, killed_for, ended, duration = self._session.run(command, limit)
        stdout, cut_out = self._read_capped("out")
        stderr, cut_err = self._read_capped("err")
        timed_out = killed_for == "timeout"
        if timed_out:
            stderr += f"\n[command timed out after {limit:g} s]"
        elif killed_for == "output":
            stderr += f"\n[command killed: its output passed {64 * self.output_limit} bytes]"
        return ExecResult(
            stdout=stdout,
            stderr=stderr,
            exit_code=code,
            duration_s=duration,
            timed_out=timed_out,
            truncated=cut_out or cut_err,
            session_restarted=ended,
            output_limited=killed_for == "output",
        )

    def _read_capped(self, name: str) -> tuple[str, bool]:
        assert self._root is not None  # noqa: S101
        try:
            with open(self._root / "ctl" / name, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size <= self.output_limit:
                    return handle.read().decode("utf-8", errors="replace"), False
                half = self.output_limit // 2
                head = handle.read(half)
                handle.seek(size - half)
                tail = handle.read(half)
        except FileNotFoundError:
            return "", False
        marker = TRUNCATION_MARKER.format(omitted=size - 2 * half)
        return head.decode("utf-8", errors="replace") + marker + tail.decode("utf-8", errors="replace"), True
