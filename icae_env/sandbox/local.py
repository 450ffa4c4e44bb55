"""The ``local`` sandbox: a temp workspace and a persistent shell, isolated by bubblewrap when available.

Under bubblewrap the shell sees a read-only system (``/usr``, ``/bin``, ``/lib*`` and a few ``/etc`` files),
a private ``/tmp``, ``/proc`` and ``/dev``, no network, and the workspace at ``/workspace`` as the only writable
place; the rest of the disk (task packs included) is invisible. Without bubblewrap it falls back to a plain
subprocess in the temp workspace and logs a warning. The environment is scrubbed in both modes.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Literal

from icae_env.errors import SandboxError, SandboxPathError
from icae_env.sandbox.base import DEFAULT_OUTPUT_LIMIT, TRUNCATION_MARKER, ExecResult
from icae_env.sandbox.session import ShellSession

__all__ = ["LocalSandbox", "bwrap_available", "TEMP_PREFIX"]

log = logging.getLogger(__name__)

TEMP_PREFIX = "icae-sbx-"
INNER_WORKDIR = "/workspace"
_INNER_CTL = "/.icae-ctl"
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC_FILES = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/mime.types",
    "/etc/hosts",
    "/etc/bash.bashrc",
    "/etc/python3.11",
    "/etc/python3",
)
Isolation = Literal["auto", "bwrap", "none"]


def bwrap_available() -> bool:
    """Whether the ``bwrap`` executable is on PATH."""
    return shutil.which("bwrap") is not None


# The installed package holds the built-in tasks' hidden cases and golden solutions: when it lives under a
# system directory that the sandbox sees (a non-editable install in /usr/...), it is masked with an empty tmpfs.
_PACKAGE_DIR = str(Path(__file__).resolve().parents[1])


def _masked(hide: tuple[str, ...]) -> list[str]:
    masked = []
    for path in (_PACKAGE_DIR, *hide):
        real = os.path.realpath(path)
        if os.path.isdir(real) and any(real == d or real.startswith(d + "/") for d in _SYSTEM_DIRS + _ETC_FILES):
            masked += ["--tmpfs", real]
    return masked


def _bwrap_argv(workspace: Path, ctl: Path, hide: tuple[str, ...] = ()) -> list[str]:
    argv = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
    for path in _SYSTEM_DIRS + _ETC_FILES:
        if os.path.lexists(path):
            argv += ["--ro-bind", path, path] if not os.path.islink(path) else ["--symlink", os.readlink(path), path]
    argv += _masked(hide)
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/root"]
    argv += ["--bind", str(workspace), INNER_WORKDIR, "--bind", str(ctl), _INNER_CTL, "--chdir", INNER_WORKDIR]
    return argv + ["bash", "--noprofile", "--norc"]


def _scrubbed_env(home: str, extra: dict[str, str] | None) -> dict[str, str]:
    env = {
        "PATH": _PATH,
        "HOME": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }
    env.update(extra or {})
    return env


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

    Returns:
        How many directories were removed.
    """
    base_dir = Path(base or tempfile.gettempdir())
    removed = 0
    for entry in base_dir.glob(TEMP_PREFIX + "*"):
        pid_text = entry.name[len(TEMP_PREFIX) :].split("-", 1)[0]
        if pid_text.isdigit() and not _pid_alive(int(pid_text)):
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed


class LocalSandbox:
    r"""Workspace in a temp directory with one persistent (optionally bubblewrapped) bash session.

    Args:
        isolation: ``"bwrap"`` (required), ``"none"`` (plain subprocess) or ``"auto"`` (bwrap when installed).
        default_timeout: Seconds a command may run when ``exec`` gets no timeout.
        output_limit: Bytes of stdout and of stderr kept per command (head + tail around a marker).
        env: Extra environment variables for the shell (the rest of the host environment is never passed).
        hide: Extra host directories to mask inside the sandbox when they lie under a visible system directory
            (the installed icae_env package is always masked).

    Example:
        >>> with LocalSandbox() as box:
        ...     box.exec("echo hi > f.txt && cat f.txt").stdout
        'hi\n'
    """

    name = "local"

    def __init__(
        self,
        isolation: Isolation = "auto",
        default_timeout: float = 120.0,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        env: dict[str, str] | None = None,
        hide: tuple[str, ...] | list[str] = (),
    ) -> None:
        if isolation not in ("auto", "bwrap", "none"):
            raise ValueError(f"isolation must be 'auto', 'bwrap' or 'none', got {isolation!r}")
        if default_timeout <= 0:
            raise ValueError(f"default_timeout must be > 0, got {default_timeout!r}")
        if output_limit < 64:
            raise ValueError(f"output_limit must be >= 64 bytes, got {output_limit!r}")
        if isolation == "bwrap" and not bwrap_available():
            raise SandboxError("isolation='bwrap' but bwrap is not installed (apt-get install bubblewrap)")
        self.isolated = isolation == "bwrap" or (isolation == "auto" and bwrap_available())
        if not self.isolated and isolation == "auto":
            log.warning("bwrap not found: local sandbox runs commands without isolation")
        self.default_timeout = default_timeout
        self.output_limit = output_limit
        self._extra_env = dict(env or {})
        self._hide = tuple(str(p) for p in hide)
        self._root: Path | None = None
        self._session: ShellSession | None = None
        self._finalizer: weakref.finalize | None = None
        self.workdir = INNER_WORKDIR if self.isolated else ""

    # -- lifecycle -------------------------------------------------------------------------------------
    def start(self) -> None:
        """Create the temp workspace and start the shell (idempotent)."""
        if self._root is not None:
            return
        reap_stale_dirs()
        root = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
        (root / "workspace").mkdir()
        (root / "ctl").mkdir()
        self._root = root
        self._finalizer = weakref.finalize(self, shutil.rmtree, str(root), True)
        workspace, ctl = root / "workspace", root / "ctl"
        if self.isolated:
            argv, home, ctl_inner = _bwrap_argv(workspace, ctl, self._hide), "/root", _INNER_CTL
        else:
            argv, home, ctl_inner = ["bash", "--noprofile", "--norc"], str(workspace), str(ctl)
            self.workdir = str(workspace)
        env = _scrubbed_env(home, self._extra_env)
        self._session = ShellSession(argv, env, workspace, ctl, ctl_inner, output_hard_limit=64 * self.output_limit)
        self._session.start()

    def close(self) -> None:
        """Kill every process of the sandbox and delete its files; safe to call twice."""
        session, self._session = self._session, None
        if session is not None:
            session.kill()
        if self._finalizer is not None:
            self._finalizer()
        self._root = None

    def __enter__(self) -> LocalSandbox:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- commands --------------------------------------------------------------------------------------
    @property
    def host_workspace(self) -> Path:
        """Host path of the workspace directory (local backend only)."""
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
            raise TypeError(f"command must be a str, got {type(command).__name__}")
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
        if self._session is None:
            self.start()
        assert self._session is not None and self._root is not None  # noqa: S101
        code, timed_out, ended, duration = self._session.run(command, timeout or self.default_timeout)
        stdout, cut_out = self._read_capped("out")
        stderr, cut_err = self._read_capped("err")
        if timed_out:
            stderr += f"\n[command timed out after {timeout or self.default_timeout:g} s]"
        return ExecResult(
            stdout=stdout,
            stderr=stderr,
            exit_code=code,
            duration_s=duration,
            timed_out=timed_out,
            truncated=cut_out or cut_err,
            session_restarted=ended,
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

    # -- files -----------------------------------------------------------------------------------------
    def _host_path(self, path: str) -> Path:
        if not isinstance(path, str) or not path:
            raise SandboxPathError(f"path must be a non-empty str, got {path!r}")
        base = os.path.realpath(self.host_workspace)
        relative = path
        if os.path.isabs(path):
            prefix = self.workdir.rstrip("/") + "/"
            if path != self.workdir and not path.startswith(prefix):
                raise SandboxPathError(f"path {path!r} is outside the workspace {self.workdir!r}")
            relative = path[len(prefix) :] if path != self.workdir else "."
        full = os.path.realpath(os.path.join(base, relative))
        if full != base and not full.startswith(base + os.sep):
            raise SandboxPathError(f"path {path!r} escapes the workspace")
        return Path(full)

    def read_file(self, path: str) -> bytes:
        """Return the bytes of workspace file ``path``."""
        return self._host_path(path).read_bytes()

    def write_file(self, path: str, data: bytes | str) -> None:
        """Create or replace workspace file ``path``."""
        target = self._host_path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)

    def copy_in(self, src: Path, dest: str = ".") -> None:
        """Copy host file or tree ``src`` into the workspace at ``dest``."""
        src = Path(src)
        target = self._host_path(dest)
        if src.is_dir():
            shutil.copytree(src, target, dirs_exist_ok=True, symlinks=True)
        elif src.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target / src.name if target.is_dir() else target)
        else:
            raise SandboxError(f"copy_in source {str(src)!r} does not exist")

    def copy_out(self, src: str, dest: Path) -> None:
        """Copy workspace file or tree ``src`` to host path ``dest``."""
        source = self._host_path(src)
        if source.is_dir():
            shutil.copytree(source, dest, dirs_exist_ok=True, symlinks=True)
        else:
            Path(dest).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest)
