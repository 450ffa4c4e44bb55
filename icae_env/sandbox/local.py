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
from pathlib import Path
from typing import Literal

from icae_env.errors import ArgumentError, SandboxError
from icae_env.logs import warn_once
from icae_env.sandbox.base import DEFAULT_OUTPUT_LIMIT
from icae_env.sandbox.session import ShellSession
from icae_env.sandbox.session_box import TEMP_PREFIX, SessionSandbox, reap_stale_dirs

__all__ = ["LocalSandbox", "bwrap_available", "reap_stale_dirs", "TEMP_PREFIX"]

log = logging.getLogger(__name__)

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


class LocalSandbox(SessionSandbox):
    r"""Workspace in a temp directory with one persistent (optionally bubblewrapped) bash session.

    Args:
        isolation: ``"bwrap"`` (required), ``"none"`` (plain subprocess) or ``"auto"`` (bwrap when installed).
        default_timeout: Seconds a command may run when ``exec`` gets no timeout.
        output_limit: Bytes of stdout and of stderr kept per command (head + tail around a marker).
        env: Extra environment variables for the shell (the rest of the host environment is never passed).
        hide: Extra host directories to mask inside the sandbox when they lie under a visible system directory
            (the installed icae_env package is always masked).
        language: The task's language (accepted as every backend does; the host's toolchains serve every one).

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
        language: str | None = None,
    ) -> None:
        if isolation not in ("auto", "bwrap", "none"):
            raise ArgumentError(f"isolation must be 'auto', 'bwrap' or 'none', got {isolation!r}")
        super().__init__(default_timeout, output_limit)
        if isolation == "bwrap" and not bwrap_available():
            raise SandboxError("isolation='bwrap' but bwrap is not installed (apt-get install bubblewrap)")
        self.isolated = isolation == "bwrap" or (isolation == "auto" and bwrap_available())
        if not self.isolated and isolation == "auto":
            warn_once(log, "bwrap not found: local sandbox runs commands without isolation")
        self._extra_env = dict(env or {})
        self._hide = tuple(str(p) for p in hide)
        self.workdir = INNER_WORKDIR if self.isolated else ""

    @staticmethod
    def available() -> bool:
        """The local backend runs everywhere (isolated only where bubblewrap is installed)."""
        return True

    def start(self) -> None:
        """Create the temp workspace and start the shell (idempotent)."""
        if self._root is not None:
            return
        root = self._make_root()
        workspace, ctl = root / "workspace", root / "ctl"
        if self.isolated:
            argv, home, ctl_inner = _bwrap_argv(workspace, ctl, self._hide), "/root", _INNER_CTL
        else:
            argv, home, ctl_inner = ["bash", "--noprofile", "--norc"], str(workspace), str(ctl)
            self.workdir = str(workspace)
        env = _scrubbed_env(home, self._extra_env)
        self._session = ShellSession(argv, env, workspace, ctl, ctl_inner, output_hard_limit=64 * self.output_limit)
        self._session.start()
