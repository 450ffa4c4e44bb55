"""The ICAE-Bench reference Oracle's three endpoints as a transport-free service over :class:`GroundedUserAgent`.

The reference harness talks to its Oracle (User Agent) over three ports, JSON over ``POST /``
(``docs/icae-format.md`` section 5):

- init (50001): ``{"key", "model", "max_interactions"?, "difficulty"?, "open_access"?}`` opens a session;
- interaction (50002): ``{"append_id", "task_id", "question"}`` answers one question;
- stats (50003): ``{"append_id", "task_id"?}`` reports the interaction metrics of one task or of the session.

:class:`OracleService` answers those requests (dicts in, dicts out); :mod:`icae_env.serve.oracle.server` puts it on
the three ports. Replies come from the deterministic router rather than an LLM, so the same questions always get
the same answers. Every session and every question is written to a store (:mod:`~icae_env.serve.oracle.store`)
before the reply goes out: in memory, or in a state directory that survives a restart. Only the in-memory working
set is bounded: a session idle for ``session_ttl_s`` is evicted, and loading one more than ``max_sessions``
evicts the least recently used one; an evicted session is reloaded from the store on its next request, so resume,
questions and stats carry on. One router index per (task, level) is shared by every session.

Example:
    >>> service = OracleService()
    >>> session = service.init({"key": PUBLISHED_KEY, "model": "my-agent"})
    >>> session["status"]["max_interactions"], session["status"]["difficulty"]
    (16, 'normal')
    >>> question = {"task_id": "builtin/dep-resolver", "question": "how are cycles reported?"}
    >>> reply = service.interaction({"append_id": session["append_id"], **question})
    >>> reply["status"]["internal_log"]["triggers_hit"], reply["status"]["remaining"]
    (['C004'], 15)
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from icae_env.errors import ArgumentError, check_int
from icae_env.registration import DEFAULT_ROUTER
from icae_env.serve.oracle.interaction_log import TaskLog, aggregate_stats, internal_log, task_stats, turn_entry
from icae_env.serve.oracle.protocol import (
    DEFAULT_MAX_SESSIONS,
    DEFAULT_SESSION_TTL_S,
    ERR_APPEND_ID,
    ERR_BUDGET,
    ERR_MISSING,
    ERR_NO_LOG,
    ERR_NO_LOGS,
    ERR_NO_PRD,
    ERR_STATS_FORMAT,
    ERR_STATS_MISSING,
    PREFLIGHT_TASK,
    PUBLISHED_KEY,
    RequestError,
    error_response,
    is_append_id,
    parse_init,
)
from icae_env.serve.oracle.sessions import LiveSession, LiveSessions, LiveTask
from icae_env.serve.oracle.store import DirectoryStore, MemoryStore, SessionStore
from icae_env.serve.oracle.task_catalog import TaskCatalog
from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.grounded import DEFAULT_BUDGET, GroundedUserAgent

__all__ = ["OracleService"]

_SIGNATURE_ID = "API_SIGNATURE"  # the golden API signature's document id (see user_agent.base.Document)


def _object(payload: Any) -> dict[str, Any]:
    if not isinstance(payload, dict):
        raise RequestError("request body must be a JSON object")
    return payload


def _question(payload: dict[str, Any]) -> tuple[str, str]:
    task_id, question = payload.get("task_id"), payload.get("question")
    if not isinstance(task_id, str) or not task_id.strip() or not isinstance(question, str) or not question.strip():
        raise RequestError(ERR_MISSING)
    return task_id.strip(), question


class OracleService:
    """The reference Oracle's three endpoints over :class:`GroundedUserAgent`, without a transport.

    **init** checks, in the reference's order, the key (``invalid key`` unless it equals ``key``; with
    ``allow_keyless`` a body without a key is also accepted), the model (``missing model``) and the difficulty;
    ``max_interactions`` goes through ``int()``-like coercion (``"16"`` and ``16.0`` give 16; 0 or less refuses
    every question). ``open_access`` is recorded with the session and echoed; it changes no answer, since this
    Oracle answers from the level's records only (the reference's open access shows an LLM the golden sources).

    **interaction** keeps one budget and one log per (session, task); every spelling of a task (``unidiff``,
    ``builtin/unidiff``; an alias or its ``owner__repo`` key) shares them. A question past the budget gets
    ``max_interactions_reached`` with ``remaining: 0`` and is logged, not counted. The harness's preflight
    (task ``__preflight__``) gets ``no prd for __preflight__`` for a known session and ``invalid append_id``
    otherwise, and is neither counted nor logged.

    **stats** reports a task (``no log for <task_id>`` when nothing was asked about it) or the session's
    aggregate (``no log found for append_id`` before any question); see :mod:`~icae_env.serve.oracle.interaction_log`
    for the fields and formulas, including ``interaction_score``.

    Requests are thread-safe: sessions are pinned while in use, and each task has its own lock.

    Args:
        data_root: An ICAE-Bench data root, or None for built-in tasks only.
        router: The router of every agent (a name from :data:`~icae_env.user_agent.grounded.ROUTERS`).
        router_options: The router's constructor options (``llm``: ``base_url``, ``model``, ``api_key``, ...; unset
            ones from ``OPENAI_*``; a failing endpoint gives the fallback reply, counted in :attr:`router_fallbacks`).
        default_budget: ``max_interactions`` when init gives none (>= 0).
        max_sessions: Sessions held in memory at most (>= 1); the store keeps them all.
        session_ttl_s: Idle seconds before a session is evicted from memory (> 0; ``math.inf`` never).
        clock: Seconds as a float, monotonic (for the idle times).
        key: The init key (default: the one the reference harness sends).
        allow_keyless: Accept an init without a key (local experiments only: any client can then mint sessions).
        state_dir: Keep sessions in this directory (see :class:`~icae_env.serve.oracle.store.DirectoryStore`);
            None keeps them in memory until the service is dropped.
        fsync: With ``state_dir``, ``fsync`` every write.

    Raises:
        ArgumentError: for a bad budget, session limit or key.
        UnknownNameError: for an unknown router.
        IcaeImportError: when ``data_root`` is not an ICAE-Bench data root.
        ConfigError: when ``state_dir`` cannot be used (another server's, or foreign files).
    """

    def __init__(
        self,
        data_root: Path | None = None,
        router: str = DEFAULT_ROUTER,
        default_budget: int = DEFAULT_BUDGET,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        session_ttl_s: float = DEFAULT_SESSION_TTL_S,
        clock: Callable[[], float] = time.monotonic,
        *,
        key: str = PUBLISHED_KEY,
        allow_keyless: bool = False,
        state_dir: Path | str | None = None,
        fsync: bool = False,
        router_options: dict[str, Any] | None = None,
    ) -> None:
        self.default_budget = check_int("default_budget", default_budget, 0)
        self.max_sessions = check_int("max_sessions", max_sessions, 1)
        ttl_ok = isinstance(session_ttl_s, (int, float)) and not isinstance(session_ttl_s, bool)
        if not ttl_ok or math.isnan(session_ttl_s) or session_ttl_s <= 0:
            raise ArgumentError(f"session_ttl_s must be a number > 0, got {session_ttl_s!r}")
        if not isinstance(key, str) or not key:
            raise ArgumentError(f"key must be a non-empty string, got {key!r}")
        self.catalog = TaskCatalog(data_root, router, router_options)
        self.session_ttl_s = float(session_ttl_s)
        self.key, self.allow_keyless = key, bool(allow_keyless)
        self.store: SessionStore = DirectoryStore(state_dir, fsync=fsync) if state_dir is not None else MemoryStore()
        self.sessions = LiveSessions(self.store, self.max_sessions, self.session_ttl_s, clock)

    @property
    def data_root(self) -> Path | None:
        """The ICAE-Bench data root, or None."""
        return self.catalog.data_root

    @property
    def router(self) -> str:
        """The router name."""
        return self.catalog.router

    @property
    def router_fallbacks(self) -> int:
        """Questions whose routing failed (``llm`` endpoint errors, unusable replies) and got the fallback reply."""
        return self.catalog.router_fallbacks

    @property
    def session_count(self) -> int:
        """Sessions held in memory now (the store holds every session ever opened)."""
        return self.sessions.count

    @property
    def sessions_evicted(self) -> int:
        """Evictions from memory so far (for idleness or to make room); evicted sessions stay in the store."""
        return self.sessions.evicted

    @property
    def router_count(self) -> int:
        """Router indexes built so far (one per task and level asked about)."""
        return self.catalog.router_count

    def close(self) -> None:
        """Release the store (a state directory's lock); safe to call twice."""
        self.store.close()

    def __enter__(self) -> OracleService:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def init(self, payload: Any) -> dict[str, Any]:
        """Open a session.

        Args:
            payload: ``{"key", "model", "max_interactions"?, "difficulty"?, "open_access"?}``.

        Returns:
            ``{"append_id": "<32 hex>", "status": {"ok": true, "max_interactions", "model", "difficulty",
            "open_access"}}``, or ``{"append_id": null, "status": {"ok": false, "error"}}``.
        """
        try:
            settings = parse_init(
                _object(payload), key=self.key, allow_keyless=self.allow_keyless, default_budget=self.default_budget
            )
        except RequestError as exc:
            return error_response("init", str(exc))
        append_id = uuid.uuid4().hex
        self.store.create_session(append_id, settings)
        self.sessions.admit(LiveSession(append_id, settings))
        status = {"ok": True, "max_interactions": settings.max_interactions, "model": settings.model}
        return {"append_id": append_id, "status": {**status, **settings.to_json()}}

    def interaction(self, payload: Any) -> dict[str, Any]:
        """Answer one question of a session about one task.

        Args:
            payload: ``{"append_id", "task_id", "question"}``.

        Returns:
            ``{"data": reply, "status": {"ok": true, "remaining", "internal_log", "parse_error": false}}``, or
            ``data: ""`` and ``status.error`` one of ``invalid append_id``, ``missing task_id/question``,
            ``no prd for <task_id>``, ``max_interactions_reached`` (then also ``remaining: 0``).
        """
        try:
            body = _object(payload)
            with self.sessions.use(body.get("append_id")) as session:
                if session is None:
                    raise RequestError(ERR_APPEND_ID)
                return self._answer(session, *_question(body))
        except RequestError as exc:
            return error_response("interaction", str(exc))

    def stats(self, payload: Any) -> dict[str, Any]:
        """Report a session's interaction metrics for one task, or aggregated over its tasks.

        Args:
            payload: ``{"append_id", "task_id"?}``.

        Returns:
            ``{"stats": {...}, "status": {"ok": true}}``, or ``{"status": {"ok": false, "error"}}`` with one of
            ``missing append_id``, ``invalid append_id format``, ``no log for <task_id>``,
            ``no log found for append_id``.
        """
        try:
            body = _object(payload)
            append_id, task_id = body.get("append_id"), body.get("task_id")
            if not append_id:
                raise RequestError(ERR_STATS_MISSING)
            if not is_append_id(append_id):
                raise RequestError(ERR_STATS_FORMAT)
            with self.sessions.use(append_id) as session:
                block = self._task_stats(session, task_id) if task_id else self._aggregate(session)
        except RequestError as exc:
            return error_response("stats", str(exc))
        return {"stats": block, "status": {"ok": True}}

    def _answer(self, session: LiveSession, task_id: str, question: str) -> dict[str, Any]:
        found = self.catalog.resolve(task_id, session.settings.level) if task_id != PREFLIGHT_TASK else None
        if found is None:
            raise RequestError(ERR_NO_PRD.format(task_id=task_id))
        canonical, data = found
        task = self._open_task(session, canonical, data)
        with task.lock:
            if len(task.log.turns) >= session.settings.max_interactions:
                self._refuse(session, task, question)
                body = error_response("interaction", ERR_BUDGET)
                body["status"]["remaining"] = 0
                return body
            entry = self._ask(session, task, data, question)
        status = {"ok": True, "remaining": entry["remaining"], "internal_log": internal_log(entry)}
        return {"data": entry["answer"], "status": {**status, "parse_error": False}}

    def _ask(self, session: LiveSession, task: LiveTask, data: UserAgentData, question: str) -> dict[str, Any]:
        """Answer, log and count one question (the caller holds the task's lock and checked the budget)."""
        agent = task.agent or self._revive(session, task, data)
        reply = agent.ask(question)
        known = set(task.log.constraints)
        count = len(task.log.turns) + 1
        entry = turn_entry(
            count,
            session.settings.max_interactions - count,
            question,
            reply.text,
            [cid for cid in reply.constraint_ids if cid in known],
            fallback=reply.fallback,
            api_alignment=_SIGNATURE_ID in reply.constraint_ids,
        )
        try:
            self.store.append_event(session.append_id, task.log, entry)
        except BaseException:
            task.agent = None  # it saw a question the log does not have: rebuild it next time
            raise
        task.log.turns.append(entry)
        return entry

    def _revive(self, session: LiveSession, task: LiveTask, data: UserAgentData) -> GroundedUserAgent:
        """Build the task's agent and replay the logged questions, so its conversation state is what it was."""
        router = self.catalog.shared_router(task.log.task_id, task.log.level, data)
        agent = GroundedUserAgent(data, budget=max(0, session.settings.max_interactions), router=router)
        for entry in task.log.turns:
            agent.ask(entry["question"])
        task.agent = agent
        return agent

    def _refuse(self, session: LiveSession, task: LiveTask, question: str) -> None:
        event = {"error": ERR_BUDGET, "turn": len(task.log.turns) + 1, "question": question, "ts": time.time()}
        self.store.append_event(session.append_id, task.log, event)
        task.log.refused += 1

    def _open_task(self, session: LiveSession, task_id: str, data: UserAgentData) -> LiveTask:
        """Return the live task, loading its log from the store, or starting a new log."""
        with session.lock:
            task = session.tasks.get(task_id) or self._load_task(session, task_id)
            if task is None:
                constraints = tuple(c.constraint_id for c in data.hidden_constraints)
                task = session.tasks[task_id] = LiveTask(TaskLog(task_id, session.settings.level, constraints))
            return task

    def _existing_task(self, session: LiveSession, task_id: str) -> LiveTask | None:
        """Return the live task, loading its log from the store; None when it has none."""
        with session.lock:
            return session.tasks.get(task_id) or self._load_task(session, task_id)

    def _load_task(self, session: LiveSession, task_id: str) -> LiveTask | None:
        """Make the stored log of a task live (the caller holds the session's lock)."""
        log = self.store.load_task(session.append_id, task_id)
        if log is None:
            return None
        task = session.tasks[task_id] = LiveTask(log)
        return task

    def _task_stats(self, session: LiveSession | None, task_id: Any) -> dict[str, Any]:
        name = task_id.strip() if isinstance(task_id, str) else str(task_id)
        missing = RequestError(ERR_NO_LOG.format(task_id=name))
        if session is None:
            raise missing
        found = self.catalog.resolve(name, session.settings.level) if name and name != PREFLIGHT_TASK else None
        task = self._existing_task(session, found[0] if found else name)
        if task is None:
            raise missing
        with task.lock:
            if not task.log.has_log:
                raise missing
            return task_stats(task.log, **self._stats_options(session))

    def _aggregate(self, session: LiveSession | None) -> dict[str, Any]:
        if session is None:
            raise RequestError(ERR_NO_LOGS)
        with session.lock:
            ids = set(session.tasks) | set(self.store.task_ids(session.append_id))
        per_task: dict[str, dict[str, Any]] = {}
        for task_id in sorted(ids):
            task = self._existing_task(session, task_id)
            if task is None:
                continue
            with task.lock:
                if task.log.has_log:
                    per_task[task_id] = task_stats(task.log, **self._stats_options(session))
        if not per_task:
            raise RequestError(ERR_NO_LOGS)
        return aggregate_stats(session.append_id, per_task, **self._stats_options(session))

    @staticmethod
    def _stats_options(session: LiveSession) -> dict[str, Any]:
        return {"model": session.settings.model, "max_interactions": session.settings.max_interactions}
