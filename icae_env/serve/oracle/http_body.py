r"""Request bodies of the Oracle server: framed by ``Content-Length`` or chunked, decoded as one JSON object.

Node's ``http.request`` followed by ``write`` sends ``Transfer-Encoding: chunked`` and no ``Content-Length``, so
both framings are read (RFC 9112: chunked wins when both are given; neither means an empty body). Problems raise
:class:`HttpError` with the HTTP status to answer.

Example:
    >>> import io
    >>> read_chunked(io.BytesIO(b"2\r\n{}\r\n0\r\n\r\n"), limit=100)
    b'{}'
"""

from __future__ import annotations

import json
import re
from email.message import Message
from http import HTTPStatus
from typing import Any, Protocol

__all__ = ["MAX_BODY_BYTES", "HttpError", "decode_json", "read_body", "read_chunked"]

#: Largest request body accepted (bytes).
MAX_BODY_BYTES = 1 << 20
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,8}")
_MAX_LINE = 4096


class Reader(Protocol):
    """The reading side of a connection (``rfile``)."""

    def read(self, size: int, /) -> bytes:
        """Read up to ``size`` bytes."""

    def readline(self, size: int, /) -> bytes:
        """Read one line of at most ``size`` bytes."""


class HttpError(Exception):
    """A request that cannot reach the service: answered with ``status`` and a JSON error body."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


def _bad(message: str) -> HttpError:
    return HttpError(HTTPStatus.BAD_REQUEST, message)


def read_chunked(stream: Reader, limit: int) -> bytes:
    """Read a chunked body (chunk extensions and trailers are skipped).

    Args:
        stream: The connection, positioned at the first chunk-size line.
        limit: Largest body accepted.

    Returns:
        The body.

    Raises:
        HttpError: 400 for bad framing, 413 past ``limit``.
    """
    body = bytearray()
    while True:
        line = stream.readline(_MAX_LINE)
        size_text = line.split(b";", 1)[0].strip()
        if not line.endswith(b"\n") or not _CHUNK_SIZE.fullmatch(size_text):
            raise _bad(f"bad chunk size line {line[:40]!r}")
        size = int(size_text, 16)
        if size == 0:
            break
        if len(body) + size > limit:
            raise HttpError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"request body over {limit} bytes")
        chunk = stream.read(size)
        if len(chunk) != size or stream.readline(_MAX_LINE) not in (b"\r\n", b"\n"):
            raise _bad("truncated or unterminated chunk")
        body += chunk
    while stream.readline(_MAX_LINE) not in (b"\r\n", b"\n", b""):
        pass  # trailer fields
    return bytes(body)


def read_body(headers: Message, stream: Reader, limit: int = MAX_BODY_BYTES) -> bytes:
    """Read a request body framed by ``Transfer-Encoding: chunked`` or ``Content-Length``.

    Args:
        headers: The request headers.
        stream: The connection, positioned after the headers.
        limit: Largest body accepted.

    Returns:
        The body (empty without either header).

    Raises:
        HttpError: 400 for a bad ``Content-Length`` or framing, 413 past ``limit``, 501 for a transfer coding
            other than ``chunked``.
    """
    coding = headers.get("Transfer-Encoding")
    if coding is not None:
        if coding.strip().lower() != "chunked":
            raise HttpError(HTTPStatus.NOT_IMPLEMENTED, f"unsupported Transfer-Encoding {coding!r}")
        return read_chunked(stream, limit)
    length = headers.get("Content-Length")
    if length is None:
        return b""
    if not length.strip().isdigit():
        raise _bad(f"invalid Content-Length {length!r}")
    if int(length) > limit:
        raise HttpError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"request body over {limit} bytes")
    body = stream.read(int(length))
    if len(body) != int(length):
        raise _bad("request body shorter than its Content-Length")
    return body


def decode_json(raw: bytes) -> dict[str, Any]:
    """Decode a UTF-8 (BOM allowed) JSON object.

    Raises:
        HttpError: 400 when ``raw`` is empty, not UTF-8, not JSON, or not an object.
    """
    if not raw.strip():
        raise _bad("request body is empty (expected a JSON object)")
    try:
        payload = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise _bad("request body is not UTF-8") from None
    except (ValueError, RecursionError) as exc:
        raise _bad(f"request body is not valid JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise _bad("request body must be a JSON object")
    return payload
