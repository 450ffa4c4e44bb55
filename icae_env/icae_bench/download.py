"""Resumable downloads over ``http(s)://`` and ``file://`` into a ``.part`` file.

An interrupted transfer resumes with an HTTP ``Range`` request from the length of the ``.part`` file; a server that
ignores it (a ``200`` answer to a ranged request) restarts the file from zero. Transient failures (no connection, a
timeout, a dropped connection, a 5xx answer) are retried with exponential back-off; a 4xx answer is final. Free disk
space is checked before each transfer, from the manifest's size or the answer's ``Content-Length``.
"""

from __future__ import annotations

import errno
import http.client
import shutil
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse

from icae_env.errors import FetchError

__all__ = ["DownloadPolicy", "check_disk", "download"]

USER_AGENT = "icae-env (icae fetch)"
_RETRY_STATUS = {408, 425, 429}
_PROGRESS_MIN = 64 << 20  # log progress (every 10%) for files of this size and more

Log = Callable[[str], None]


@dataclass(frozen=True)
class DownloadPolicy:
    """How downloads behave.

    Attributes:
        timeout_s: Socket timeout (connect and each read).
        retries: Retries after a transient failure (0: a single attempt).
        backoff_s: Delay before the first retry; each further retry doubles it.
        chunk_bytes: Read size.
    """

    timeout_s: float = 60.0
    retries: int = 4
    backoff_s: float = 2.0
    chunk_bytes: int = 1 << 20


class _Transient(Exception):
    """A failure worth retrying."""


def _mb(count: int) -> str:
    return f"{count / 1e6:.1f} MB"


def check_disk(folder: Path, needed: int, name: str) -> None:
    """Raise :class:`FetchError` when ``folder``'s file system has less than ``needed`` bytes free."""
    free = shutil.disk_usage(folder).free
    if needed > free:
        raise FetchError(f"{name}: no disk space: {_mb(needed)} needed in {folder}, {_mb(free)} free")


def _length(path: Path) -> int:
    return path.stat().st_size if path.is_file() else 0


@dataclass(frozen=True)
class _Job:
    url: str
    part: Path
    size: int | None
    name: str
    policy: DownloadPolicy
    log: Log


def download(url: str, part: Path, size: int | None, name: str, policy: DownloadPolicy, log: Log) -> None:
    """Download ``url`` into ``part``, resuming from what ``part`` already holds.

    Args:
        url: An ``http(s)://`` or ``file://`` URL.
        part: The ``.part`` file (created or extended).
        size: The expected size when the manifest pins it (checked against the disk before the transfer).
        name: The artifact name, for messages.
        policy: Timeouts and retries.
        log: Receives progress lines.

    Raises:
        FetchError: one line on a 4xx answer, a missing file, no disk space, or when the retries are used up.
    """
    part.parent.mkdir(parents=True, exist_ok=True)
    if size is not None:
        check_disk(part.parent, max(0, size - _length(part)), name)
    job = _Job(url, part, size, name, policy, log)
    attempt_once = _file_attempt if urlparse(url).scheme == "file" else _http_attempt
    for attempt in range(policy.retries + 1):
        try:
            attempt_once(job)
            return
        except _Transient as exc:
            if attempt >= policy.retries:
                raise FetchError(f"{name}: {exc} (gave up after {attempt + 1} attempt(s))") from None
            delay = policy.backoff_s * 2**attempt
            log(f"{name}: {exc}; retrying in {delay:g} s")
            time.sleep(delay)


def _file_attempt(job: _Job) -> None:
    source = Path(urllib.request.url2pathname(urlparse(job.url).path))
    if not source.is_file():
        raise FetchError(f"{job.name}: not found (no such file): {job.url}")
    total = source.stat().st_size
    offset = _length(job.part) if _length(job.part) <= total else 0
    check_disk(job.part.parent, total - offset, job.name)
    with source.open("rb") as stream:
        stream.seek(offset)
        _copy(job, stream, offset, total)


def _http_attempt(job: _Job) -> None:
    offset = _length(job.part)
    if job.size is not None and offset >= job.size:
        if offset == job.size:
            return
        job.part.unlink()
        offset = 0
    with _open(job, offset) as response:
        offset = _start_of(job, response, offset)
        length = response.headers.get("Content-Length", "")
        remaining = int(length) if length.isdigit() else None
        if job.size is None and remaining is not None:
            check_disk(job.part.parent, remaining, job.name)
        total = offset + remaining if remaining is not None else job.size
        received = _copy(job, response, offset, total)
    if remaining is not None and received < remaining:
        raise _Transient(f"connection lost after {_mb(offset + received)} of {_mb(offset + remaining)}")


def _open(job: _Job, offset: int) -> http.client.HTTPResponse:
    host = urlparse(job.url).netloc
    headers = {"User-Agent": USER_AGENT, **({"Range": f"bytes={offset}-"} if offset else {})}
    request = urllib.request.Request(job.url, headers=headers)
    try:
        response: http.client.HTTPResponse = urllib.request.urlopen(request, timeout=job.policy.timeout_s)
        return response
    except HTTPError as exc:
        exc.close()
        if exc.code == 416 and offset:
            job.part.unlink()
            raise _Transient("the server refused to resume (HTTP 416); restarting from zero") from None
        if exc.code in _RETRY_STATUS or exc.code >= 500:
            raise _Transient(f"HTTP {exc.code} {exc.reason} from {host}") from None
        raise FetchError(f"{job.name}: HTTP {exc.code} {exc.reason}: {job.url}") from None
    except URLError as exc:
        reason = getattr(exc.reason, "strerror", None) or exc.reason
        raise _Transient(f"cannot reach {host} ({reason})") from None
    except (OSError, http.client.HTTPException) as exc:
        raise _Transient(f"cannot reach {host} ({exc.__class__.__name__}: {exc})") from None


def _start_of(job: _Job, response: http.client.HTTPResponse, offset: int) -> int:
    """Where the answer's body starts in the file: ``offset`` for a matching 206, 0 when the server sent it all."""
    if offset and response.status == 200:
        job.log(f"{job.name}: the server ignored the Range request; restarting from zero")
        return 0
    if response.status == 206:
        content_range = response.headers.get("Content-Range", "")
        start = content_range.removeprefix("bytes ").split("-", 1)[0]
        if not start.isdigit() or int(start) != offset:
            job.part.unlink(missing_ok=True)
            raise _Transient(f"the server answered range {content_range!r} to bytes={offset}-; restarting")
    return offset


def _copy(job: _Job, source: BinaryIO | http.client.HTTPResponse, offset: int, total: int | None) -> int:
    """Append ``source`` to the part file (from ``offset``; 0 truncates it); returns the bytes received."""
    received = 0
    step = total // 10 if total and total >= _PROGRESS_MIN else 0
    next_report = offset + step
    try:
        with job.part.open("ab" if offset else "wb") as out:
            while block := source.read(job.policy.chunk_bytes):
                out.write(block)
                received += len(block)
                if step and total and offset + received >= next_report:
                    job.log(f"{job.name}: {100 * (offset + received) // total}% of {_mb(total)}")
                    next_report += step
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise FetchError(f"{job.name}: no disk space left in {job.part.parent}") from None
        raise _Transient(f"transfer interrupted after {_mb(offset + received)} ({exc})") from None
    except http.client.HTTPException as exc:
        raise _Transient(f"transfer interrupted after {_mb(offset + received)} ({exc.__class__.__name__})") from None
    return received
