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
chat-completions object, a reply whose content holds no ``{"ids": [...]}`` object, or one that names only ids the
task does not have, raises :class:`LLMRouterError` (an :class:`~icae_env.errors.IcaeEnvError`) by default. With
``on_error="fallback"`` (what environments and the Oracle server use) such a question gets no match instead, so the
User Agent gives its fallback reply; the failure is kept in :attr:`LLMRouter.errors` and counted by
:attr:`LLMRouter.fallbacks`. Unknown ids beside known ones are dropped and counted in
:attr:`LLMRouter.dropped_ids`. Failed questions are never cached.

Endpoint: ``base_url``, ``model`` and ``api_key`` left unset fall back to ``OPENAI_BASE_URL``, ``OPENAI_MODEL`` and
``OPENAI_API_KEY`` (:mod:`icae_env.user_agent.optional.endpoint`); without a base URL or model the router is not
built (:class:`~icae_env.user_agent.optional.endpoint.EndpointConfigError`, naming the option and the variable).
"""

from __future__ import annotations

import hashlib
import http.client
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from icae_env.llm_http import LLMHttpError, ReplyCache, message_content, post_chat
from icae_env.user_agent.base import Document, Match
from icae_env.user_agent.optional.endpoint import Endpoint, resolve_endpoint

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
        base_url: The endpoint's base, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is appended);
            unset: ``OPENAI_BASE_URL``.
        model: The model name sent with each request; unset: ``OPENAI_MODEL``.
        api_key: Sent as ``Authorization: Bearer <key>`` when given; unset: ``OPENAI_API_KEY`` (if set).
        cache_path: A JSON file that keeps the replies across processes (created when missing).
        timeout: Seconds to wait for one HTTP response.
        max_ids: The most ids a reply may contribute (the User Agent answers with at most three records).
        on_error: ``"raise"`` (an :class:`LLMRouterError`) or ``"fallback"`` (no match) when the endpoint fails.
        temperature: Sampling temperature sent with each request.
        summary_chars: The length of each document's response summary in the prompt.
        max_tokens: The reply's token limit (a reply is one short JSON object; a small model that rambles is cut
            off instead of filling its context).
        json_reply: How to ask for the JSON reply through ``response_format``: ``"object"`` (``json_object``,
            OpenAI and most servers), ``"schema"`` (``json_object`` with the reply's JSON schema, the ids an enum:
            llama.cpp, vLLM; a small local model then always replies in form) or ``"off"`` (the prompt alone).

    Attributes:
        requests: HTTP requests made.
        errors: Why each failed question fell back (with ``on_error="fallback"``).
        dropped_ids: Unknown ids dropped from otherwise usable replies.

    Raises:
        EndpointConfigError: (a ``ValueError``) when no base URL or model is given or set in the environment.
        ValueError: for ``max_ids < 1`` or an unknown ``on_error``.
        LLMRouterError: if ``cache_path`` exists but is not a reply cache.
    """

    name = "llm"

    def __init__(
        self,
        documents: Sequence[Document],
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        cache_path: str | Path | None = None,
        timeout: float = 60.0,
        max_ids: int = 3,
        on_error: Literal["raise", "fallback"] = "raise",
        temperature: float = 0.0,
        summary_chars: int = 160,
        max_tokens: int = 128,
        json_reply: Literal["object", "schema", "off"] = "object",
    ) -> None:
        endpoint = self.check_options({"base_url": base_url, "model": model, "api_key": api_key, "on_error": on_error})
        if max_ids < 1:
            raise ValueError(f"max_ids must be >= 1, got {max_ids}")
        if json_reply not in ("object", "schema", "off"):
            raise ValueError(f"json_reply must be 'object', 'schema' or 'off', got {json_reply!r}")
        self.documents = tuple(documents)
        self.base_url = endpoint.base_url.rstrip("/")
        self.model = endpoint.model
        self.api_key = endpoint.api_key
        self.cache_path = Path(cache_path) if cache_path is not None else None
        self.timeout = timeout
        self.max_ids = max_ids
        self.on_error = on_error
        self.temperature = temperature
        self.summary_chars = summary_chars
        self.max_tokens, self.json_reply = max_tokens, json_reply
        self.requests = 0
        self.errors: list[str] = []
        self.dropped_ids = 0
        self._index = {d.doc_id: i for i, d in reversed(list(enumerate(self.documents)))}
        self._doc_ids = tuple(d.doc_id for d in self.documents)
        try:
            self._cache = ReplyCache(self.cache_path, _CACHE_VERSION)
        except LLMHttpError as exc:
            raise LLMRouterError(str(exc)) from exc

    @staticmethod
    def check_options(options: dict[str, Any]) -> Endpoint:
        """Return the endpoint ``options`` (``base_url``, ``model``, ``api_key``) give with the ``OPENAI_*`` fallbacks.

        Environments call it when they are built, so a missing endpoint fails there, not at the first question.

        Raises:
            EndpointConfigError: naming each missing option and its variable.
            ValueError: for an unknown ``on_error``.
        """
        on_error = options.get("on_error", "raise")
        if on_error not in ("raise", "fallback"):
            raise ValueError(f"on_error must be 'raise' or 'fallback', got {on_error!r}")
        return resolve_endpoint("the llm router", options.get("base_url"), options.get("model"), options.get("api_key"))

    @property
    def fallbacks(self) -> int:
        """Questions that fell back to no match because the endpoint failed or its reply was unusable."""
        return len(self.errors)

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
            "max_tokens": self.max_tokens,
            **self._response_format(),
        }

    def _response_format(self) -> dict[str, Any]:
        if self.json_reply == "off":
            return {}
        form: dict[str, Any] = {"type": "json_object"}
        if self.json_reply == "schema":
            ids = {"type": "array", "items": {"type": "string", "enum": list(self._doc_ids)}, "maxItems": self.max_ids}
            form["schema"] = {"type": "object", "properties": {"ids": ids}, "required": ["ids"]}
        return {"response_format": form}

    def _complete(self, body: dict[str, Any]) -> str:
        self.requests += 1
        try:
            return message_content(post_chat(self.base_url, body, api_key=self.api_key, timeout=self.timeout))
        except LLMHttpError as exc:
            raise LLMRouterError(str(exc)) from exc
        except (http.client.HTTPException, ValueError) as exc:  # a broken connection or body urllib lets through
            raise LLMRouterError(f"{self.base_url}: {type(exc).__name__}: {exc}") from exc

    def _valid(self, ids: Sequence[str]) -> list[str]:
        """Return the known ids of ``ids``, in order, without duplicates, at most ``max_ids``."""
        return [i for i in dict.fromkeys(ids) if i in self._index][: self.max_ids]

    def ask(self, question: str) -> list[str]:
        """Return the validated ids the model gives for ``question`` (from the cache when it was asked before).

        Raises:
            LLMRouterError: if the endpoint fails, the reply holds no ``{"ids": [...]}`` object or names only
                unknown ids.
        """
        key = _cache_key(self.model, question, self._doc_ids)
        entry = self._cache.get(key)
        if entry is not None:
            return list(entry["ids"])
        content = self._complete(self.request_body(question))
        try:
            named = parse_ids(content)
        except ValueError as exc:
            raise LLMRouterError(f"malformed reply: {exc}") from exc
        ids = self._valid(named)
        unknown = [i for i in dict.fromkeys(named) if i not in self._index]
        if unknown and not ids:
            raise LLMRouterError(f"malformed reply: only unknown ids {unknown[:5]!r}")
        self.dropped_ids += len(unknown)
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
