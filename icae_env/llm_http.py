"""A minimal client for OpenAI-compatible chat-completions endpoints (standard library only) and a reply cache.

Used by the LLM router of the User Agent and by the revision judge. The cache maps a hash of the request body to
the reply content and lives in a JSON file, so that a replay or re-score needs no server and is deterministic.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from icae_env.errors import IcaeEnvError

__all__ = ["LLMHttpError", "post_chat", "message_content", "ReplyCache", "body_key"]


class LLMHttpError(IcaeEnvError, RuntimeError):
    """The endpoint could not be reached or did not answer with a chat completion."""


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
        raise LLMHttpError(f"{url}: HTTP {exc.code}: {detail}") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise LLMHttpError(f"{url}: {exc}") from exc
    try:
        reply = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise LLMHttpError(f"{url}: response is not JSON: {raw[:200]!r}") from exc
    if not isinstance(reply, dict):
        raise LLMHttpError(f"{url}: response is not a JSON object")
    return reply


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
