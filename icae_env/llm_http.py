"""Minimal clients for OpenAI-compatible chat-completions endpoints (standard library only) and a reply cache.

:func:`post_chat` (one attempt) is used by the LLM router of the User Agent and by the revision judge;
:class:`ChatClient` (retries, typed context-length errors) by the LLM baseline. The cache maps a hash of the request
body to the reply content and lives in a JSON file, so that a replay or re-score needs no server and is
deterministic. :func:`estimate_tokens` is the cheap, conservative token count that context budgets use.

Example:
    >>> estimate_tokens([{"role": "user", "content": "x" * 300}])
    106
    >>> is_context_error(400, "you requested 8919 tokens (8407 in the messages, 512 in the completion)")
    True
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from icae_env.errors import ArgumentError, IcaeEnvError

__all__ = [
    "CHARS_PER_TOKEN",
    "ChatClient",
    "LLMContextError",
    "LLMHttpError",
    "ReplyCache",
    "body_key",
    "estimate_tokens",
    "is_context_error",
    "message_content",
    "model_context_length",
    "post_chat",
]

#: Characters per token of :func:`estimate_tokens`: 3 over-counts English and code for common tokenizers (about 4).
CHARS_PER_TOKEN = 3
_MESSAGE_OVERHEAD_CHARS = 16  # role markers and separators of one chat message
_RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
_CONTEXT_ERROR = re.compile(
    r"context[ _-]?(?:length|window|size)|maximum context|requested \d+ tokens|exceeds? the context|n_ctx|"
    r"too many tokens|prompt is too long",
    re.IGNORECASE,
)


class LLMHttpError(IcaeEnvError, RuntimeError):
    """The endpoint could not be reached or did not answer with a chat completion.

    Attributes:
        status: The HTTP status of the failed request (None when it got no HTTP answer).
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class LLMContextError(LLMHttpError):
    """The endpoint refused the request because prompt and completion do not fit the model's context."""


def is_context_error(status: int | None, detail: str) -> bool:
    """Whether an HTTP error answer says that the request does not fit the model's context.

    Args:
        status: The HTTP status (OpenAI, vLLM and llama.cpp answer 400; some proxies 413).
        detail: The error body.
    """
    return status in (400, 413) and _CONTEXT_ERROR.search(detail) is not None


def estimate_tokens(messages: Sequence[Mapping[str, Any]] = (), tools: Any = None) -> int:
    """A cheap upper estimate of the prompt tokens of ``messages`` (and ``tools`` definitions, when sent).

    Content and tool-call JSON count one token per :data:`CHARS_PER_TOKEN` characters, plus a few per message.
    """
    chars = 0
    for message in messages:
        content = message.get("content")
        chars += _MESSAGE_OVERHEAD_CHARS + (len(content) if isinstance(content, str) else len(json.dumps(content)))
        calls = message.get("tool_calls")
        if calls:
            chars += len(json.dumps(calls, ensure_ascii=False))
    if tools:
        chars += len(json.dumps(tools, ensure_ascii=False))
    return math.ceil(chars / CHARS_PER_TOKEN)


def post_chat(base_url: str, body: dict[str, Any], *, api_key: str | None = None, timeout: float = 60.0) -> dict:
    """POST ``body`` to ``<base_url>/chat/completions`` and return the decoded JSON object.

    Raises:
        LLMHttpError: on a transport error, an HTTP error status or a reply that is not a JSON object.
    """
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    url = f"{base_url.rstrip('/')}/chat/completions"
    request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:300].decode("utf-8", "replace")
        raise LLMHttpError(f"{url}: HTTP {exc.code}: {detail}", exc.code) from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise LLMHttpError(f"{url}: {exc}") from exc
    try:
        reply = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise LLMHttpError(f"{url}: response is not JSON: {raw[:200]!r}") from exc
    if not isinstance(reply, dict):
        raise LLMHttpError(f"{url}: response is not a JSON object")
    return reply


class ChatClient:
    """POSTs chat-completions requests with ``urllib``, retrying transient failures (429, 5xx, no connection).

    Args:
        base_url: The endpoint's base URL (``.../v1``).
        api_key: Bearer key (empty: no Authorization header).
        timeout_s: Timeout per HTTP call.
        retries: Retries after the first attempt.
        backoff_s: First back-off; it doubles per retry.

    Raises:
        ArgumentError: for a URL that is not http(s) or negative settings.
    """

    def __init__(
        self, base_url: str, api_key: str = "", timeout_s: float = 300.0, retries: int = 4, backoff_s: float = 1.0
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ArgumentError(f"base_url must start with http:// or https://, got {base_url!r}")
        if retries < 0 or timeout_s <= 0 or backoff_s < 0:
            raise ArgumentError(
                f"need retries >= 0, timeout_s > 0 and backoff_s >= 0; got {retries}, {timeout_s}, {backoff_s}"
            )
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.api_key, self.timeout_s, self.retries, self.backoff_s = api_key, timeout_s, retries, backoff_s

    def _request(self, url: str, payload: dict[str, Any] | None) -> urllib.request.Request:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = None if payload is None else json.dumps(payload, ensure_ascii=False).encode("utf-8")
        return urllib.request.Request(url, data=data, headers=headers, method="GET" if payload is None else "POST")

    def _decode(self, body: str) -> dict[str, Any]:
        try:
            decoded = json.loads(body)
        except json.JSONDecodeError:
            decoded = None
        if not isinstance(decoded, dict):
            raise LLMHttpError(f"{self.url} returned something other than a JSON object: {body[:300]!r}")
        return decoded

    def complete(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Return the decoded completion for ``payload``.

        Raises:
            LLMContextError: when the endpoint says that the request does not fit the model's context.
            LLMHttpError: for another non-retryable HTTP error, or when the retries are used up.
        """
        for attempt in range(self.retries + 1):
            try:
                with urllib.request.urlopen(self._request(self.url, payload), timeout=self.timeout_s) as response:
                    body = response.read().decode("utf-8", errors="replace")
                return self._decode(body)
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode("utf-8", errors="replace")[:500]
                message = f"{self.url} answered HTTP {exc.code}: {detail}"
                if is_context_error(exc.code, detail):
                    raise LLMContextError(message, exc.code) from None
                if exc.code not in _RETRY_STATUS or attempt == self.retries:
                    raise LLMHttpError(message, exc.code) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt == self.retries:
                    raise LLMHttpError(f"{self.url} unreachable after {attempt + 1} attempts: {exc}") from None
            time.sleep(self.backoff_s * 2**attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def models(self) -> dict[str, Any]:
        """Return the endpoint's ``GET /models`` answer (one attempt).

        Raises:
            LLMHttpError: when the endpoint does not answer it with a JSON object.
        """
        try:
            with urllib.request.urlopen(self._request(self.base_url + "/models", None), timeout=30) as response:
                return self._decode(response.read().decode("utf-8", errors="replace"))
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise LLMHttpError(f"{self.base_url}/models: {exc}") from None


_CONTEXT_KEYS = ("max_model_len", "context_length", "context_window", "max_context_length", "n_ctx", "n_ctx_train")


def model_context_length(models: Mapping[str, Any], model: str) -> int | None:
    """Return the context length that a ``GET /models`` answer gives for ``model`` (None when it gives none).

    vLLM and SGLang report ``max_model_len``, others ``context_length`` or llama.cpp's ``meta.n_ctx_train``.

    Example:
        >>> model_context_length({"data": [{"id": "m", "max_model_len": 8192}]}, "m")
        8192
    """
    entries = [e for e in models.get("data") or [] if isinstance(e, dict)]
    chosen = [e for e in entries if e.get("id") == model] or entries[:1]
    for entry in chosen:
        meta = entry.get("meta")
        for place in (entry, meta if isinstance(meta, dict) else {}):
            for key in _CONTEXT_KEYS:
                value = place.get(key)
                if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                    return value
    return None


def message_content(reply: dict[str, Any]) -> str:
    """Return the first choice's message content.

    Raises:
        LLMHttpError: when ``reply`` is not a chat completion with text content.
    """
    try:
        content = reply["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMHttpError(f"not a chat-completions response: {json.dumps(reply)[:200]}") from exc
    if not isinstance(content, str):
        raise LLMHttpError(f"the reply has no text content: {json.dumps(reply)[:200]}")
    return content


def body_key(body: dict[str, Any]) -> str:
    """Return the cache key of a request body (SHA-256 of its canonical JSON)."""
    blob = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ReplyCache:
    """Request-body hash -> reply content, kept in memory and (optionally) in a JSON file written atomically.

    Args:
        path: The JSON file (created when missing); None keeps the cache in memory only.
        version: A format tag checked on load.

    Raises:
        LLMHttpError: when ``path`` exists but is not a cache of this version.
    """

    def __init__(self, path: str | Path | None, version: str | int) -> None:
        self.path = Path(path) if path is not None else None
        self.version = version
        self._lock = threading.Lock()
        self.entries: dict[str, Any] = self._load()

    def _load(self) -> dict[str, Any]:
        if self.path is None or not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise LLMHttpError(f"{self.path}: not a readable reply cache: {exc}") from exc
        entries = data.get("entries") if isinstance(data, dict) else None
        if not isinstance(entries, dict) or data.get("version") != self.version:
            raise LLMHttpError(f"{self.path}: not a reply cache (expected version {self.version!r})")
        return dict(entries)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def get(self, key: str) -> Any:
        """Return the cached value of ``key`` (None when absent)."""
        return self.entries.get(key)

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` and rewrite the file."""
        with self._lock:
            self.entries[key] = value
            if self.path is None:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            payload = json.dumps({"version": self.version, "entries": self.entries}, ensure_ascii=False, indent=1)
            fd, tmp = tempfile.mkstemp(prefix=self.path.name, suffix=".tmp", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(payload)
                os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
