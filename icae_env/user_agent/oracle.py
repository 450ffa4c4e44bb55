"""The ICAE-Bench reference Oracle's three endpoints as a transport-free service over :class:`GroundedUserAgent`.

The reference harness talks to its Oracle (User Agent) over three ports, JSON over ``POST /``
(``../shared/icae-format.md`` section 5):

- init (50001): ``{"key", "model", "max_interactions"?, "difficulty"?}`` opens a session (``append_id``);
- interaction (50002): ``{"append_id", "task_id", "question"}`` answers one question;
- stats (50003): ``{"append_id", "task_id"?}`` reports the interaction metrics (section 4).

:class:`OracleService` answers those requests (dicts in, dicts out); :mod:`icae_env.user_agent.server` puts it on
the three ports. Replies come from the deterministic router rather than an LLM, so the same questions always get
the same answers. A long-running server does not grow without bound: a session idle for ``session_ttl_s`` is
closed, and opening one more than ``max_sessions`` closes the least recently used one (a closed session's
requests get ``invalid append_id``). One router index per (task, level) is shared by every session.

Example:
    >>> service = OracleService()
    >>> session = service.init({"key": "run-1", "model": "my-agent"})
    >>> session["status"]["max_interactions"], session["status"]["difficulty"]
    (16, 'normal')
    >>> question = {"task_id": "builtin/dep-resolver", "question": "how are cycles reported?"}
    >>> reply = service.interaction({"append_id": session["append_id"], **question})
    >>> reply["status"]["internal_log"]["triggers_hit"], reply["status"]["remaining"]
    (['C004'], 15)
"""

from __future__ import annotations

import math
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from icae_env.errors import IcaeImportError
from icae_env.tasks import list_tasks, load_icae_bench, load_task
from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.base import Match, Router
from icae_env.user_agent.grounded import DEFAULT_BUDGET, ROUTERS, GroundedUserAgent, documents_for, make_router
from icae_env.user_agent.metrics import InteractionLog, InteractionStats

__all__ = [
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_PORTS",
    "DEFAULT_SESSION_TTL_S",
    "DIFFICULTIES",
    "ENDPOINTS",
    "OracleService",
    "error_response",
]

#: ICAE difficulty name -> icae-env level.
DIFFICULTIES: dict[str, str] = {"normal": "L1", "medium": "L2", "easy": "L3"}
#: The three endpoints, in port order.
ENDPOINTS: tuple[str, str, str] = ("init", "interaction", "stats")
#: The reference Oracle's ports (init, interaction, stats).
DEFAULT_PORTS: tuple[int, int, int] = (50001, 50002, 50003)
#: Sessions kept open at most; opening one more closes the least recently used.
DEFAULT_MAX_SESSIONS = 10_000
#: Seconds a session may stay idle before it is closed.
DEFAULT_SESSION_TTL_S = 6 * 3600.0
ERR_APPEND_ID = "invalid append_id"
ERR_MISSING = "missing task_id/question"
ERR_NO_PRD = "no prd for {task_id}"
ERR_BUDGET = "max_interactions_reached"
_BUILTIN = "builtin/"
_SAFE_ALIAS = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]*")
_MEAN_FIELDS = (
    "constraint_coverage",
    "task_coverage",
    "fallback_rate",
    "budget_usage_rate",
    "turns_used",
    "max_interactions",
    "fallbacks",
    "total_constraints",
)


class _RequestError(Exception):
    """A request the service answers with ``ok: false`` and this message."""


@dataclass
class _Session:
    """One ``append_id``: its settings, its agents (one per canonical task id) and its lock."""

    key: str
    model: str
    difficulty: str
    max_interactions: int
    agents: dict[str, GroundedUserAgent] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = 0.0

    @property
    def level(self) -> str:
        """The icae-env level of this session's difficulty."""
        return DIFFICULTIES[self.difficulty]


class _SharedRouter:
    """One router index shared by every session of a (task, level); ``route`` calls are serialised."""

    def __init__(self, inner: Router) -> None:
        self.inner = inner
        self.name = inner.name
        self._lock = threading.Lock()

    def route(self, question: str) -> list[Match]:
        """Return the inner router's matches (one call at a time: routers need not be thread-safe)."""
        with self._lock:
            return self.inner.route(question)


def error_response(endpoint: str, message: str) -> dict[str, Any]:
    """Return the reference error body of ``endpoint`` (``init``, ``interaction`` or ``stats``).

    Args:
        endpoint: One of :data:`ENDPOINTS`.
        message: The ``status.error`` string.

    Returns:
        ``{"append_id": ""|"data": ""|"stats": {}, "status": {"ok": false, "error": message}}``.
    """
    status = {"ok": False, "error": message}
    if endpoint == "init":
        return {"append_id": "", "status": status}
    if endpoint == "stats":
        return {"stats": {}, "status": status}
    return {"data": "", "status": status}


def _optional_str(payload: dict[str, Any], name: str) -> str:
    value = payload.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _RequestError(f"{name} must be a string")
    return value


def _budget(value: Any, default: int) -> int:
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _RequestError(f"max_interactions must be an integer >= 0, got {value!r}")
    return value


def _difficulty(value: Any) -> str:
    if value is None:
        return "normal"
    if not isinstance(value, str) or value not in DIFFICULTIES:
        raise _RequestError(f"unknown difficulty {value!r}; expected one of {', '.join(DIFFICULTIES)}")
    return value


def _stats_json(stats: InteractionStats) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in stats.model_dump().items()}


def _mean_stats(per_task: dict[str, InteractionStats], max_interactions: int) -> dict[str, Any]:
    """Means of the numeric fields; id lists concatenated as ``<task_id>:<constraint_id>``."""
    n = len(per_task)
    block: dict[str, Any] = {f: sum(getattr(s, f) for s in per_task.values()) / n if n else 0.0 for f in _MEAN_FIELDS}
    if not n:
        block["max_interactions"] = float(max_interactions)
    block["triggers_hit"] = [f"{t}:{c}" for t, s in per_task.items() for c in s.triggers_hit]
    block["missed_constraints"] = [f"{t}:{c}" for t, s in per_task.items() for c in s.missed_constraints]
    order = list(InteractionStats.model_fields)
    return {k: block[k] for k in order}


class OracleService:
    """The reference Oracle's three endpoints over :class:`GroundedUserAgent`, without a transport.

    Sessions are isolated and guarded by their own lock, so concurrent requests are safe. Each session holds one
    agent per task (created on its first question, with the session's level and budget); task data is loaded once
    per (task id, level). A task resolves, in order, as an alias or ``owner__repo`` key of the ICAE data root (when
    one is given) and as a built-in task (``builtin/<name>`` or ``<name>``); other paths are never read.

    Stats without ``task_id`` average every numeric field over the tasks the session has asked about (all zero,
    and ``max_interactions`` the session's budget, before any question) and concatenate ``triggers_hit`` and
    ``missed_constraints`` with each id prefixed by its task (``realcode@001:C002``) so that ids stay distinct.
    Stats also carry ``task_coverage`` (the task's own records only, see :mod:`icae_env.user_agent.metrics`).

    Sessions are bounded: one idle for ``session_ttl_s`` seconds is closed, and opening a session beyond
    ``max_sessions`` closes the least recently used one; either way its later requests get ``invalid append_id``
    and :attr:`sessions_closed` counts it. Agents of the same (task, level) share one router index.

    Args:
        data_root: An ICAE-Bench data root, or None for built-in tasks only.
        router: The router of every agent (a name from :data:`~icae_env.user_agent.grounded.ROUTERS`).
        default_budget: ``max_interactions`` when init does not give one.
        max_sessions: Sessions kept open at most (>= 1).
        session_ttl_s: Idle seconds before a session is closed (> 0; ``math.inf`` keeps sessions until evicted).
        clock: Seconds as a float, monotonic (for the idle times).

    Raises:
        ValueError: for an unknown router, a negative budget, or a bad session limit.
        IcaeImportError: when ``data_root`` is not an ICAE-Bench data root.
    """

    def __init__(
        self,
        data_root: Path | None = None,
        router: str = "lexical",
        default_budget: int = DEFAULT_BUDGET,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        session_ttl_s: float = DEFAULT_SESSION_TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        if router not in ROUTERS:
            raise ValueError(f"unknown router {router!r}; expected one of {sorted(ROUTERS)}")
        if not isinstance(default_budget, int) or isinstance(default_budget, bool) or default_budget < 0:
            raise ValueError(f"default_budget must be an int >= 0, got {default_budget!r}")
        if not isinstance(max_sessions, int) or isinstance(max_sessions, bool) or max_sessions < 1:
            raise ValueError(f"max_sessions must be an int >= 1, got {max_sessions!r}")
        if not isinstance(session_ttl_s, (int, float)) or math.isnan(session_ttl_s) or session_ttl_s <= 0:
            raise ValueError(f"session_ttl_s must be a number > 0, got {session_ttl_s!r}")
        if data_root is not None and not (Path(data_root) / "user_agent").is_dir():
            raise IcaeImportError(f"{data_root}: not an ICAE-Bench data root (no user_agent/ directory)")
        self.data_root = Path(data_root) if data_root is not None else None
        self.router = router
        self.default_budget = default_budget
        self.max_sessions, self.session_ttl_s, self._clock = max_sessions, float(session_ttl_s), clock
        self._sessions: OrderedDict[str, _Session] = OrderedDict()  # least recently used first
        self._sessions_lock = threading.Lock()
        self._closed_count = 0
        self._tasks: dict[tuple[str, str], tuple[str, UserAgentData]] = {}
        self._routers: dict[tuple[str, str], _SharedRouter] = {}
        self._tasks_lock = threading.Lock()

    @property
    def session_count(self) -> int:
        """Number of open sessions (idle ones past their time included until the next request closes them)."""
        with self._sessions_lock:
            return len(self._sessions)

    @property
    def sessions_closed(self) -> int:
        """Sessions closed so far for idleness or to make room."""
        with self._sessions_lock:
            return self._closed_count

    @property
    def router_count(self) -> int:
        """Router indexes built so far (one per task and level asked about)."""
        with self._tasks_lock:
            return len(self._routers)

    def init(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Open a session.

        Args:
            payload: ``{"key", "model", "max_interactions"?, "difficulty"?: "normal"|"medium"|"easy"}``.

        Returns:
            ``{"append_id": "<32 hex>", "status": {"ok": true, "max_interactions", "model", "difficulty"}}``, or
            the init error body (unknown difficulty, bad budget, non-string key or model).
        """
        try:
            session = self._new_session(payload)
        except _RequestError as exc:
            return error_response("init", str(exc))
        append_id = uuid.uuid4().hex
        with self._sessions_lock:
            now = self._clock()
            self._close_idle(now)
            while len(self._sessions) >= self.max_sessions:
                self._sessions.popitem(last=False)
                self._closed_count += 1
            session.last_used = now
            self._sessions[append_id] = session
        status = {"ok": True, "max_interactions": session.max_interactions, "model": session.model}
        return {"append_id": append_id, "status": {**status, "difficulty": session.difficulty}}

    def interaction(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Answer one question of a session about one task.

        Args:
            payload: ``{"append_id", "task_id", "question"}``.

        Returns:
            ``{"data": reply, "status": {"ok": true, "remaining", "internal_log", "parse_error": false}}``, or
            ``data: ""`` and ``status.error`` one of ``invalid append_id``, ``missing task_id/question``,
            ``no prd for <task_id>``, ``max_interactions_reached`` (a refused question is not counted).
        """
        try:
            session = self._session(payload)
            task_id, question = self._question(payload)
            with session.lock:
                agent = self._agent(session, task_id)
                reply = agent.ask(question)
                turn = None if reply.refused else agent.log.turns[-1]
        except _RequestError as exc:
            return error_response("interaction", str(exc))
        if turn is None:
            body = error_response("interaction", ERR_BUDGET)
            body["status"]["remaining"] = 0
            return body
        log = {"triggers_hit": list(turn.triggers_hit), "fallback_triggered": turn.fallback_triggered}
        log.update(turn=turn.turn, question=turn.question, answer=turn.answer)
        return {
            "data": reply.text,
            "status": {"ok": True, "remaining": reply.remaining, "internal_log": log, "parse_error": False},
        }

    def stats(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Report a session's interaction metrics for one task, or averaged over its tasks.

        Args:
            payload: ``{"append_id", "task_id"?}``.

        Returns:
            ``{"stats": {...}, "status": {"ok": true}}`` (fields as in
            :class:`~icae_env.user_agent.metrics.InteractionStats`), or the stats error body.
        """
        try:
            session = self._session(payload)
            task_id = payload.get("task_id")
            with session.lock:
                if task_id is None or task_id == "":
                    per_task = {tid: agent.stats() for tid, agent in session.agents.items()}
                    block = _mean_stats(per_task, session.max_interactions)
                else:
                    block = _stats_json(self._task_stats(session, task_id))
        except _RequestError as exc:
            return error_response("stats", str(exc))
        return {"stats": block, "status": {"ok": True}}

    def _new_session(self, payload: Any) -> _Session:
        if not isinstance(payload, dict):
            raise _RequestError("request body must be a JSON object")
        return _Session(
            key=_optional_str(payload, "key"),
            model=_optional_str(payload, "model"),
            difficulty=_difficulty(payload.get("difficulty")),
            max_interactions=_budget(payload.get("max_interactions"), self.default_budget),
        )

    def _session(self, payload: Any) -> _Session:
        append_id = payload.get("append_id") if isinstance(payload, dict) else None
        with self._sessions_lock:
            now = self._clock()
            self._close_idle(now)
            session = self._sessions.get(append_id) if isinstance(append_id, str) else None
            if session is not None and isinstance(append_id, str):
                session.last_used = now
                self._sessions.move_to_end(append_id)
        if session is None:
            raise _RequestError(ERR_APPEND_ID)
        return session

    def _close_idle(self, now: float) -> None:
        """Close the sessions idle for ``session_ttl_s`` (the caller holds the sessions lock)."""
        while self._sessions:
            oldest = next(iter(self._sessions.values()))
            if now - oldest.last_used < self.session_ttl_s:
                return
            self._sessions.popitem(last=False)
            self._closed_count += 1

    @staticmethod
    def _question(payload: dict[str, Any]) -> tuple[str, str]:
        task_id, question = payload.get("task_id"), payload.get("question")
        if not isinstance(task_id, str) or not task_id.strip() or not isinstance(question, str) or not question.strip():
            raise _RequestError(ERR_MISSING)
        return task_id.strip(), question

    def _agent(self, session: _Session, task_id: str) -> GroundedUserAgent:
        canonical, data = self._resolve(task_id, session.level)
        agent = session.agents.get(canonical)
        if agent is None:
            router = self._shared_router(canonical, session.level, data)
            agent = GroundedUserAgent(data, budget=session.max_interactions, router=router)
            session.agents[canonical] = agent
        return agent

    def _shared_router(self, canonical: str, level: str, data: UserAgentData) -> _SharedRouter:
        """The router of (task, level), built on first use (outside the lock: building can take a while)."""
        with self._tasks_lock:
            shared = self._routers.get((canonical, level))
        if shared is None:
            built = _SharedRouter(make_router(self.router, documents_for(data)))
            with self._tasks_lock:
                shared = self._routers.setdefault((canonical, level), built)
        return shared

    def _task_stats(self, session: _Session, task_id: Any) -> InteractionStats:
        if not isinstance(task_id, str):
            raise _RequestError(ERR_NO_PRD.format(task_id=task_id))
        canonical, data = self._resolve(task_id.strip(), session.level)
        agent = session.agents.get(canonical)
        if agent is not None:
            return agent.stats()
        return InteractionLog(constraints=data.hidden_constraints, max_interactions=session.max_interactions).stats()

    def _resolve(self, task_id: str, level: str) -> tuple[str, UserAgentData]:
        """Return (canonical task id, level data), cached; raise ``no prd for <task_id>`` when nothing matches."""
        with self._tasks_lock:
            cached = self._tasks.get((task_id, level))
        if cached is not None:
            return cached
        found = self._load_icae(task_id, level) or self._load_builtin(task_id, level)
        if found is None:
            raise _RequestError(ERR_NO_PRD.format(task_id=task_id))
        with self._tasks_lock:
            return self._tasks.setdefault((task_id, level), found)

    def _load_icae(self, task_id: str, level: str) -> tuple[str, UserAgentData] | None:
        if self.data_root is None or not _SAFE_ALIAS.fullmatch(task_id) or ".." in task_id:
            return None
        try:
            task = load_icae_bench(self.data_root, task_id, level)
        except IcaeImportError:
            return None
        return task.id, task.user_agent_data(level)

    @staticmethod
    def _load_builtin(task_id: str, level: str) -> tuple[str, UserAgentData] | None:
        name = _BUILTIN + task_id.removeprefix(_BUILTIN)
        if name not in list_tasks():
            return None
        task = load_task(name)
        return (name, task.user_agent_data(level)) if level in task.levels else None
