"""Streamed, filtered extraction of the release archives (``.tar``, ``.tar.gz``/``.tgz``, ``.tar.lz4``).

Members go through tarfile's ``data`` filter (PEP 706), which refuses paths outside the destination (``..``),
links that point outside it or are absolute, and device or FIFO members; absolute member names are refused too
(the filter would only strip their leading ``/``). The first refused member stops the extraction with an error that
names it. ``.tar.lz4`` needs the ``lz4`` wheel (``pip install "icae-env[data]"``).
"""

from __future__ import annotations

import errno
import tarfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from icae_env.errors import DependencyNotInstalled, FetchError

__all__ = ["ARCHIVE_SUFFIXES", "BadArchive", "extract_archive", "is_docker_archive", "require_unpacker"]

ARCHIVE_SUFFIXES = (".tar.lz4", ".tar.gz", ".tgz", ".tar")

_REFUSALS = {
    tarfile.AbsolutePathError: "an absolute path",
    tarfile.OutsideDestinationError: "a path outside the data root",
    tarfile.SpecialFileError: "a device or special file",
    tarfile.AbsoluteLinkError: "an absolute link",
    tarfile.LinkOutsideDestinationError: "a link pointing outside the data root",
}


class BadArchive(FetchError):
    """The archive itself is bad (unreadable, a refused member, a wrong layout): delete it, never install it."""


def _strict_filter(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    if member.name.startswith("/"):
        raise tarfile.AbsolutePathError(member)
    return tarfile.data_filter(member, dest)


def require_unpacker(file_name: str) -> None:
    """Raise :class:`DependencyNotInstalled` now (before any download) when ``file_name`` needs a missing wheel."""
    if file_name.lower().endswith(".tar.lz4"):
        try:
            import lz4.frame  # noqa: F401
        except ImportError:
            raise DependencyNotInstalled("lz4", "data") from None


def _lz4_stream(path: Path) -> IO[bytes]:
    require_unpacker(path.name)
    import lz4.frame

    stream: IO[bytes] = lz4.frame.open(path, "rb")
    return stream


@contextmanager
def _open_stream(path: Path) -> Iterator[tarfile.TarFile]:
    name = path.name.lower()
    if name.endswith(".tar.lz4"):
        with _lz4_stream(path) as raw, tarfile.open(fileobj=raw, mode="r|") as tar:
            yield tar
    elif name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(path, mode="r|gz") as tar:
            yield tar
    elif name.endswith(".tar"):
        with tarfile.open(path, mode="r|") as tar:
            yield tar
    else:
        raise FetchError(
            f"{path.name}: not an archive this command can unpack (expected {', '.join(ARCHIVE_SUFFIXES)})"
        )


def extract_archive(path: Path, dest: Path, label: str) -> int:
    """Unpack ``path`` into ``dest`` in one streamed pass; returns the number of members.

    Args:
        path: The archive.
        dest: The (staging) directory; it must exist.
        label: The artifact name, for messages.

    Raises:
        BadArchive: naming a refused member, or when the archive is unreadable.
        FetchError: when the disk is full or the staging directory cannot be written.
    """
    count = 0

    def counted(member: tarfile.TarInfo, where: str) -> tarfile.TarInfo | None:
        nonlocal count
        count += 1
        return _strict_filter(member, where)

    try:
        with _open_stream(path) as tar:
            tar.extractall(dest, filter=counted)
    except tarfile.FilterError as exc:
        reason = next((text for kind, text in _REFUSALS.items() if isinstance(exc, kind)), "a refused member")
        raise BadArchive(f"{label}: refused tar member {exc.tarinfo.name!r} in {path.name}: {reason}") from None
    except (tarfile.TarError, EOFError, zlib.error, RuntimeError) as exc:
        raise BadArchive(f"{label}: {path.name} is not a readable archive ({exc.__class__.__name__}: {exc})") from None
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise FetchError(f"{label}: no disk space left while unpacking {path.name} into {dest}") from None
        raise FetchError(f"{label}: cannot unpack {path.name}: {exc}") from None
    return count


def is_docker_archive(path: Path) -> bool:
    """Whether ``path`` is a readable tar with a top-level ``manifest.json`` (what ``docker save`` writes)."""
    try:
        with tarfile.open(path, mode="r:") as tar:
            return any(_top_name(m) == "manifest.json" for m in tar)
    except (tarfile.TarError, EOFError, OSError):
        return False


def _top_name(member: tarfile.TarInfo) -> str:
    return str(member.name).removeprefix("./")
