"""``icae-env oracle serve``: the HTTP API of ICAE-Bench's reference Oracle, backed by :class:`GroundedUserAgent`.

The reference harness talks to its Oracle (User Agent) over three ports, JSON over ``POST /``
(``../shared/icae-format.md`` section 5):

- init (50001): ``{"key", "model", "max_interactions"?, "difficulty"?}`` opens a session (``append_id``);
- interaction (50002): ``{"append_id", "task_id", "question"}`` answers one question;
- stats (50003): ``{"append_id", "task_id"?}`` reports the interaction metrics (section 4).

:class:`OracleService` is the transport-free core; :class:`OracleServer` puts it on the three ports.
Differences from the reference: replies come from the deterministic router rather than an LLM, so the same
questions always get the same answers; domain errors (``invalid append_id`` ...) are HTTP 200 with
``status.ok`` false, as a client of the reference expects, while unusable requests (bad JSON, a body that is not
a JSON object, a missing or oversized ``Content-Length``) get HTTP 400/411/413 and unexpected failures HTTP 500,
always with a JSON body of the endpoint's shape. The ``Content-Type`` header is not checked (``curl -d`` works);
the body must be a UTF-8 JSON object. Any path is accepted; ``GET`` returns a small health object.

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

import argparse
import json
import re
import socket
import sys
import threading
import traceback
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from icae_env.errors import IcaeImportError
from icae_env.tasks import list_tasks, load_icae_bench, load_task
from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.grounded import DEFAULT_BUDGET, ROUTERS, GroundedUserAgent
from icae_env.user_agent.metrics import InteractionLog, InteractionStats

__all__ = [
    "DEFAULT_PORTS",
    "DIFFICULTIES",
    "ENDPOINTS",
    "OracleServer",
    "OracleService",
    "add_oracle_commands",
    "error_response",
]

#: ICAE difficulty name -> icae-env level.
DIFFICULTIES: dict[str, str] = {"normal": "L1", "medium": "L2", "easy": "L3"}
#: The three endpoints, in port order.
ENDPOINTS: tuple[str, str, str] = ("init", "interaction", "stats")
#: The reference Oracle's ports (init, interaction, stats).
DEFAULT_PORTS: tuple[int, int, int] = (50001, 50002, 50003)
MAX_BODY_BYTES = 1 << 20
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

    @property
    def level(self) -> str:
        """The icae-env level of this session's difficulty."""
        return DIFFICULTIES[self.difficulty]


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

    Args:
        data_root: An ICAE-Bench data root, or None for built-in tasks only.
        router: The router of every agent (a name from :data:`~icae_env.user_agent.grounded.ROUTERS`).
        default_budget: ``max_interactions`` when init does not give one.

    Raises:
        ValueError: for an unknown router or a negative budget.
        IcaeImportError: when ``data_root`` is not an ICAE-Bench data root.
    """

    def __init__(self, data_root: Path | None = None, router: str = "lexical", default_budget: int = DEFAULT_BUDGET):
        if router not in ROUTERS:
            raise ValueError(f"unknown router {router!r}; expected one of {sorted(ROUTERS)}")
        if not isinstance(default_budget, int) or isinstance(default_budget, bool) or default_budget < 0:
            raise ValueError(f"default_budget must be an int >= 0, got {default_budget!r}")
        if data_root is not None and not (Path(data_root) / "user_agent").is_dir():
            raise IcaeImportError(f"{data_root}: not an ICAE-Bench data root (no user_agent/ directory)")
        self.data_root = Path(data_root) if data_root is not None else None
        self.router = router
        self.default_budget = default_budget
        self._sessions: dict[str, _Session] = {}
        self._sessions_lock = threading.Lock()
        self._tasks: dict[tuple[str, str], tuple[str, UserAgentData]] = {}
        self._tasks_lock = threading.Lock()

    @property
    def session_count(self) -> int:
        """Number of open sessions."""
        with self._sessions_lock:
            return len(self._sessions)

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
            session = self._sessions.get(append_id) if isinstance(append_id, str) else None
        if session is None:
            raise _RequestError(ERR_APPEND_ID)
        return session

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
            agent = GroundedUserAgent(data, budget=session.max_interactions, router=self.router)
            session.agents[canonical] = agent
        return agent

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


class _HttpError(Exception):
    """A request that cannot reach the service: answered with ``status`` and a JSON error body."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


class _EndpointServer(ThreadingHTTPServer):
    """One endpoint's HTTP server: knows its name, its service method and whether to log."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, host: str, port: int, endpoint: str, service: OracleService, verbose: bool) -> None:
        if ":" in host:
            self.address_family = socket.AF_INET6
        self.endpoint = endpoint
        self.service = service
        self.verbose = verbose
        self.respond: Callable[[dict[str, Any]], dict[str, Any]] = getattr(service, endpoint)
        super().__init__((host, port), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Report a broken connection only when verbose."""
        if self.verbose:
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """JSON over POST (any path); GET answers a health object. Never lets an exception escape."""

    server: _EndpointServer
    server_version = "icae-env-oracle"

    def do_POST(self) -> None:
        """Answer one endpoint request."""
        try:
            status, body = HTTPStatus.OK, self.server.respond(self._read_json())
        except _HttpError as exc:
            status, body = exc.status, error_response(self.server.endpoint, str(exc))
        except Exception as exc:
            if self.server.verbose:
                traceback.print_exc()
            message = f"internal error: {type(exc).__name__}: {exc}"
            status, body = HTTPStatus.INTERNAL_SERVER_ERROR, error_response(self.server.endpoint, message)
        self._send(status, body)

    def do_GET(self) -> None:
        """Answer a health check."""
        service = self.server.service
        body = {
            "status": {"ok": True},
            "service": "icae-env oracle",
            "endpoint": self.server.endpoint,
            "sessions": service.session_count,
            "router": service.router,
        }
        self._send(HTTPStatus.OK, body)

    def _read_json(self) -> dict[str, Any]:
        raw = self._read_body()
        try:
            payload = json.loads(raw.decode("utf-8-sig"))
        except UnicodeDecodeError:
            raise _HttpError(HTTPStatus.BAD_REQUEST, "request body is not UTF-8") from None
        except (ValueError, RecursionError) as exc:
            raise _HttpError(HTTPStatus.BAD_REQUEST, f"request body is not valid JSON: {exc}") from None
        if not isinstance(payload, dict):
            raise _HttpError(HTTPStatus.BAD_REQUEST, "request body must be a JSON object")
        return payload

    def _read_body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length is None:
            raise _HttpError(HTTPStatus.LENGTH_REQUIRED, "Content-Length is required")
        if not length.strip().isdigit():
            raise _HttpError(HTTPStatus.BAD_REQUEST, f"invalid Content-Length {length!r}")
        if int(length) > MAX_BODY_BYTES:
            raise _HttpError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"request body over {MAX_BODY_BYTES} bytes")
        return self.rfile.read(int(length))

    def _send(self, status: HTTPStatus, body: dict[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Log a request line only when verbose."""
        if self.server.verbose:
            super().log_message(format, *args)


class OracleServer:
    """Serve an :class:`OracleService` on three ports (init, interaction, stats), JSON over ``POST /``.

    The ports are bound on construction (port 0 picks a free one; see :attr:`ports`). Use as a context manager, or
    call :meth:`start` / :meth:`serve_forever` and then :meth:`close`.

    Args:
        service: The service to expose.
        host: The address to listen on.
        ports: The init, interaction and stats ports.
        verbose: Log every request and connection error to stderr.

    Raises:
        ValueError: unless exactly three ports are given.
        OSError: when a port cannot be bound (the ports bound so far are released).
    """

    def __init__(
        self,
        service: OracleService,
        host: str = "127.0.0.1",
        ports: Sequence[int] = DEFAULT_PORTS,
        verbose: bool = False,
    ) -> None:
        if len(ports) != len(ENDPOINTS):
            raise ValueError(f"expected {len(ENDPOINTS)} ports (init, interaction, stats), got {list(ports)}")
        self.service = service
        self.host = host
        self._servers: list[_EndpointServer] = []
        try:
            for name, port in zip(ENDPOINTS, ports, strict=True):
                self._servers.append(_EndpointServer(host, port, name, service, verbose))
        except BaseException:
            for server in self._servers:
                server.server_close()
            raise
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = threading.Event()

    @property
    def ports(self) -> tuple[int, int, int]:
        """The bound init, interaction and stats ports."""
        init, interaction, stats = (int(s.server_address[1]) for s in self._servers)
        return init, interaction, stats

    @property
    def urls(self) -> dict[str, str]:
        """Endpoint name -> ``http://host:port/``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return {name: f"http://{host}:{port}/" for name, port in zip(ENDPOINTS, self.ports, strict=True)}

    def start(self) -> None:
        """Serve in background threads (no-op when already started).

        Raises:
            RuntimeError: after :meth:`close`.
        """
        with self._lock:
            if self._closed.is_set():
                raise RuntimeError("the oracle server is closed")
            if self._threads:
                return
            for server in self._servers:
                thread = threading.Thread(
                    target=server.serve_forever,
                    kwargs={"poll_interval": 0.1},
                    name=f"oracle-{server.endpoint}",
                    daemon=True,
                )
                thread.start()
                self._threads.append(thread)

    def serve_forever(self) -> None:
        """Start, then block until :meth:`close` is called (or KeyboardInterrupt, which propagates)."""
        self.start()
        while not self._closed.wait(0.5):
            pass

    def close(self) -> None:
        """Stop serving and release the ports; safe to call twice."""
        with self._lock:
            if self._closed.is_set():
                return
            self._closed.set()
            if self._threads:
                for server in self._servers:
                    server.shutdown()
            for server in self._servers:
                server.server_close()
            for thread in self._threads:
                thread.join(timeout=5)

    def __enter__(self) -> OracleServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _ports_arg(text: str) -> tuple[int, int, int]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3 or not all(p.isdigit() and int(p) <= 65535 for p in parts):
        raise argparse.ArgumentTypeError(f"expected three ports init,interaction,stats (0-65535), got {text!r}")
    init, interaction, stats = (int(p) for p in parts)
    return init, interaction, stats


def _budget_arg(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return int(text)


def _cmd_serve(args: argparse.Namespace) -> int:
    service = OracleService(args.data_root, router=args.router, default_budget=args.budget)
    try:
        server = OracleServer(service, host=args.host, ports=args.ports, verbose=args.verbose)
    except OSError as exc:
        print(f"icae-env: error: cannot listen on {args.host} ports {args.ports}: {exc}", file=sys.stderr)
        return 2
    with server:
        urls = ", ".join(f"{name} {url}" for name, url in server.urls.items())
        source = f"data root {service.data_root} and built-in tasks" if service.data_root else "built-in tasks"
        print(
            f"icae-env oracle: {urls} ({source}; router {service.router}, budget {service.default_budget})", flush=True
        )
        server.serve_forever()
    return 0


def add_oracle_commands(subparsers: Any) -> None:
    """Register ``oracle serve`` on an argparse subparsers object.

    ``oracle serve [--data-root DIR] [--host H] [--ports I,Q,S] [--router NAME] [--budget N] [-v]`` serves until
    interrupted; its ``func(args)`` returns the exit status.

    Args:
        subparsers: The object returned by ``ArgumentParser.add_subparsers``.
    """
    oracle = subparsers.add_parser("oracle", help="serve the ICAE-Bench Oracle (User Agent) HTTP API")
    commands = oracle.add_subparsers(dest="oracle_command", required=True)
    serve = commands.add_parser("serve", help="answer the reference harness's init/interaction/stats requests")
    serve.add_argument("--data-root", type=Path, default=None, help="ICAE-Bench data root (tasks by alias or key)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument(
        "--ports",
        type=_ports_arg,
        default=DEFAULT_PORTS,
        help="init,interaction,stats ports (default 50001,50002,50003; 0 picks a free port)",
    )
    serve.add_argument("--router", choices=sorted(ROUTERS), default="lexical", help="question router")
    serve.add_argument(
        "--budget",
        type=_budget_arg,
        default=DEFAULT_BUDGET,
        help=f"max_interactions when init gives none (default {DEFAULT_BUDGET})",
    )
    serve.add_argument("-v", "--verbose", action="store_true", help="log every request to stderr")
    serve.set_defaults(func=_cmd_serve)
