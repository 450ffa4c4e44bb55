"""The optional ``llm`` router: asks an OpenAI-compatible chat-completions endpoint which records a question hits.

The request is plain HTTP (``urllib``; no client library): ``POST {base_url}/chat/completions`` with the model, a
system message that states the task and the reply format, and a user message that lists every document as
``<id> [<kind>] triggers: [...] summary: ...`` followed by the question. The model must answer with a JSON object
``{"ids": [...]}``, most relevant first (``[]`` when nothing matches). The reply is validated: ids the task does not
have are dropped, duplicates removed, and at most ``max_ids`` kept, so a reply can never point outside the task.

Replies are cached, keyed by ``(model, question, document ids)``: in memory, and in a JSON file when ``cache_path``
is given (written atomically after each new reply). A replay of the same questions is therefore deterministic and
needs no server: a fresh router over the same cache file answers from it without a request.

Errors: a transport failure (connection refused, timeout, HTTP error status), a response that is not a
chat-completions object, or a reply whose content holds no ``{"ids": [...]}`` object raises :class:`LLMRouterError`
(an :class:`~icae_env.errors.IcaeEnvError`) by default. With ``on_error="fallback"`` such a question gets no match
instead, so the User Agent gives its fallback reply; the failure is kept in :attr:`LLMRouter.errors`. Failed
questions are never cached.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from icae_env.llm_http import LLMHttpError, ReplyCache, message_content, post_chat
from icae_env.user_agent.base import Document, Match

__all__ = ["LLMRouter", "LLMRouterError", "SYSTEM_PROMPT", "build_messages", "parse_ids"]

#: The system message (a ``str.format`` template with ``max_ids``).
SYSTEM_PROMPT = (
    "You route a developer's clarification question to the requirement records that answer it. "
    "You are given the records, each with its id, kind, trigger phrases and a short summary, then the question. "
    'Answer with one JSON object and nothing else: {{"ids": [...]}}, the ids of the records the question asks '
    "about, most relevant first, at most {max_ids}. Use only ids from the list. "
    'If no record answers the question, answer {{"ids": []}}.'
)
_CACHE_VERSION = 1
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


class LLMRouterError(LLMHttpError):
    """The chat-completions endpoint failed or gave an unusable reply."""


def _summary(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


def build_messages(
    documents: Sequence[Document], question: str, max_ids: int = 3, summary_chars: int = 160
) -> list[dict[str, str]]:
    """Return the chat messages that ask which of ``documents`` the question hits.

    Args:
        documents: The documents to choose from.
        question: The developer's question.
        max_ids: The most ids the reply may list.
        summary_chars: The length of each document's response summary.

    Returns:
        A system and a user message.
    """
    lines = [
        f"{d.doc_id} [{d.kind}] triggers: {json.dumps(list(d.triggers), ensure_ascii=False)} "
        f"summary: {_summary(d.response, summary_chars)}"
        for d in documents
    ]
    user = "Records:\n" + "\n".join(lines) + f"\n\nQuestion: {question}"
    return [{"role": "system", "content": SYSTEM_PROMPT.format(max_ids=max_ids)}, {"role": "user", "content": user}]


def parse_ids(content: str) -> list[str]:
    """Return the ``ids`` list of the JSON object in a reply's content (code fences and prose around it allowed).

    Raises:
        ValueError: if the content holds no JSON object with an ``ids`` list of strings.
    """
    text = content.strip()
    candidates = [text]
    found = _JSON_OBJECT.search(text)
    if found:
        candidates.append(found.group(0))
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("ids"), list):
            ids = value["ids"]
            if all(isinstance(i, str) for i in ids):
                return list(ids)
            raise ValueError(f"ids must be strings, got {ids!r}")
    raise ValueError(f'no {{"ids": [...]}} object in the reply: {content[:200]!r}')


def _cache_key(model: str, question: str, doc_ids: Sequence[str]) -> str:
    blob = json.dumps([model, question, list(doc_ids)], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class LLMRouter:
    """Routes questions by asking a chat model (see the module docstring).

    Args:
        documents: The documents to route between.
        base_url: The endpoint's base, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is appended).
        model: The model name sent with each request.
        api_key: Sent as ``Authorization: Bearer <key>`` when given.
        cache_path: A JSON file that keeps the replies across processes (created when missing).
        timeout: Seconds to wait for one HTTP response.
        max_ids: The most ids a reply may contribute (the User Agent answers with at most three records).
        on_error: ``"raise"`` (an :class:`LLMRouterError`) or ``"fallback"`` (no match) when the endpoint fails.
        temperature: Sampling temperature sent with each request.
        summary_chars: The length of each document's response summary in the prompt.

    Raises:
        ValueError: for an empty ``base_url`` or ``model``, ``max_ids < 1`` or an unknown ``on_error``.
        LLMRouterError: if ``cache_path`` exists but is not a reply cache.
    """

    name = "llm"

    def __init__(
        self,
        documents: Sequence[Document],
        base_url: str,
        model: str,
        api_key: str | None = None,
        cache_path: str | Path | None = None,
        timeout: float = 60.0,
        max_ids: int = 3,
        on_error: Literal["raise", "fallback"] = "raise",
        temperature: float = 0.0,
        summary_chars: int = 160,
    ) -> None:
        if not base_url or not model:
            raise ValueError("base_url and model must be non-empty strings")
        if max_ids < 1:
            raise ValueError(f"max_ids must be >= 1, got {max_ids}")
        if on_error not in ("raise", "fallback"):
            raise ValueError(f"on_error must be 'raise' or 'fallback', got {on_error!r}")
        self.documents = tuple(documents)
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.cache_path = Path(cache_path) if cache_path is not None else None
        self.timeout = timeout
        self.max_ids = max_ids
        self.on_error = on_error
        self.temperature = temperature
        self.summary_chars = summary_chars
        self.requests = 0
        self.errors: list[str] = []
        self._index = {d.doc_id: i for i, d in reversed(list(enumerate(self.documents)))}
        self._doc_ids = tuple(d.doc_id for d in self.documents)
        try:
            self._cache = ReplyCache(self.cache_path, _CACHE_VERSION)
        except LLMHttpError as exc:
            raise LLMRouterError(str(exc)) from exc

    # -- endpoint ---------------------------------------------------------------------------------------------
    def cached(self, question: str) -> list[str] | None:
        """Return the cached reply ids for ``question``, or ``None`` when it was never answered."""
        entry = self._cache.get(_cache_key(self.model, question, self._doc_ids))
        return None if entry is None else list(entry["ids"])

    def request_body(self, question: str) -> dict[str, Any]:
        """Return the JSON body of the chat-completions request for ``question``."""
        return {
            "model": self.model,
            "messages": build_messages(self.documents, question, self.max_ids, self.summary_chars),
            "temperature": self.temperature,
        }

    def _complete(self, body: dict[str, Any]) -> str:
        self.requests += 1
        try:
            return message_content(post_chat(self.base_url, body, api_key=self.api_key, timeout=self.timeout))
        except LLMHttpError as exc:
            raise LLMRouterError(str(exc)) from exc

    def _valid(self, ids: Sequence[str]) -> list[str]:
        """Return the known ids of ``ids``, in order, without duplicates, at most ``max_ids``."""
        return [i for i in dict.fromkeys(ids) if i in self._index][: self.max_ids]

    def ask(self, question: str) -> list[str]:
        """Return the validated ids the model gives for ``question`` (from the cache when it was asked before).

        Raises:
            LLMRouterError: if the endpoint fails or the reply holds no ``{"ids": [...]}`` object.
        """
        key = _cache_key(self.model, question, self._doc_ids)
        entry = self._cache.get(key)
        if entry is not None:
            return list(entry["ids"])
        content = self._complete(self.request_body(question))
        try:
            ids = self._valid(parse_ids(content))
        except ValueError as exc:
            raise LLMRouterError(f"malformed reply: {exc}") from exc
        self._cache.put(key, {"model": self.model, "question": question, "ids": ids})
        return ids

    def route(self, question: str) -> list[Match]:
        """Return the documents the model names, in its order, scored ``1 / rank``.

        Raises:
            LLMRouterError: on endpoint failures when ``on_error="raise"`` (see the module docstring).
        """
        if not self.documents or not question.strip():
            return []
        try:
            ids = self.ask(question)
        except LLMRouterError as exc:
            if self.on_error == "raise":
                raise
            self.errors.append(str(exc))
            return []
        return [Match(self._index[doc_id], 1.0 / (rank + 1)) for rank, doc_id in enumerate(ids)]
