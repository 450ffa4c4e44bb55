"""File operations on a workspace that lives in a host directory (shared by the local and docker backends)."""

from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

from icae_env.errors import SandboxError, SandboxPathError

__all__ = ["HostWorkspace"]


class HostWorkspace:
    """Mixin: ``read_file``/``write_file``/``copy_in``/``copy_out`` on ``host_workspace``, confined to it.

    Paths are relative to the workspace root or absolute under ``workdir`` (the path commands see); any path
    that resolves outside the workspace, symlinks included, raises :class:`SandboxPathError`.
    """

    workdir: str

    @property
    def host_workspace(self) -> Path:
        """Host path of the workspace directory."""
        raise NotImplementedError

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

    def _open(self, path: str, flags: int, *, create_dirs: bool = False) -> int:
        """Open a workspace path component by component without following symlinks.

        The path is resolved and checked first; the walk then refuses any symlink, so a directory swapped for a
        symlink between the check and the open (a race a background process could run) cannot redirect it.
        """
        full = self._host_path(path)
        base = os.path.realpath(self.host_workspace)
        parts = [p for p in os.path.relpath(full, base).split(os.sep) if p not in ("", ".")]
        fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for part in parts[:-1]:
                if create_dirs:
                    try:
                        os.mkdir(part, dir_fd=fd)
                    except FileExistsError:
                        pass
                fd = self._step(fd, part, os.O_RDONLY | os.O_DIRECTORY, path)
            if not parts:
                return os.dup(fd)
            return self._step(fd, parts[-1], flags, path)
        finally:
            os.close(fd)

    @staticmethod
    def _step(dir_fd: int, name: str, flags: int, path: str) -> int:
        try:
            child = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(f"/proc/self/fd/{dir_fd}/{name}"):
                raise SandboxPathError(f"path {path!r} goes through a symlink that changed") from None
            raise
        if flags & os.O_DIRECTORY:
            os.close(dir_fd)
        return child

    def read_file(self, path: str) -> bytes:
        """Return the bytes of workspace file ``path``."""
        fd = self._open(path, os.O_RDONLY)
        with os.fdopen(fd, "rb") as handle:
            if stat.S_ISDIR(os.fstat(handle.fileno()).st_mode):
                raise IsADirectoryError(errno.EISDIR, "is a directory", path)
            return handle.read()

    def write_file(self, path: str, data: bytes | str) -> None:
        """Create or replace workspace file ``path``."""
        fd = self._open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, create_dirs=True)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)

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
