"""``icae-env oracle serve``: the HTTP API of ICAE-Bench's reference Oracle, backed by :class:`OracleService`.

:class:`OracleServer` puts :class:`~icae_env.user_agent.oracle.OracleService` on the reference's three ports
(init, interaction, stats; JSON over ``POST /``). Domain errors (``invalid append_id`` ...) are HTTP 200 with
``status.ok`` false, as a client of the reference expects, while unusable requests (bad JSON, a body that is not
a JSON object, a missing or oversized ``Content-Length``) get HTTP 400/411/413 and unexpected failures HTTP 500,
always with a JSON body of the endpoint's shape. The ``Content-Type`` header is not checked (``curl -d`` works);
the body must be a UTF-8 JSON object. Any path is accepted; ``GET`` returns a small health object.

Example:
    >>> with OracleServer(OracleService(), ports=(0, 0, 0)) as server:
    ...     sorted(server.urls)
    ['init', 'interaction', 'stats']
"""

from __future__ import annotations

import argparse
import json
import math
import socket
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from icae_env.user_agent.grounded import DEFAULT_BUDGET, ROUTERS
from icae_env.user_agent.oracle import (
    DEFAULT_MAX_SESSIONS,
    DEFAULT_PORTS,
    DEFAULT_SESSION_TTL_S,
    DIFFICULTIES,
    ENDPOINTS,
    OracleService,
    error_response,
)

__all__ = [
    "DEFAULT_PORTS",
    "DIFFICULTIES",
    "ENDPOINTS",
    "MAX_BODY_BYTES",
    "OracleServer",
    "OracleService",
    "add_oracle_commands",
    "error_response",
]

#: Largest request body accepted (bytes).
MAX_BODY_BYTES = 1 << 20


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
            "sessions_closed": service.sessions_closed,
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


def _positive_arg(kind: type) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value > 0 or (isinstance(value, float) and math.isnan(value)):
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__} > 0, got {text!r}")
        return value

    return parse


def _cmd_serve(args: argparse.Namespace) -> int:
    service = OracleService(
        args.data_root,
        router=args.router,
        default_budget=args.budget,
        max_sessions=args.max_sessions,
        session_ttl_s=args.session_ttl,
    )
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

    ``oracle serve [--data-root DIR] [--host H] [--ports I,Q,S] [--router NAME] [--budget N] [--max-sessions N]
    [--session-ttl S] [-v]`` serves until interrupted; its ``func(args)`` returns the exit status.

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
    serve.add_argument(
        "--max-sessions",
        type=_positive_arg(int),
        default=DEFAULT_MAX_SESSIONS,
        help=f"open sessions kept at most; the least recently used is closed (default {DEFAULT_MAX_SESSIONS})",
    )
    serve.add_argument(
        "--session-ttl",
        type=_positive_arg(float),
        default=DEFAULT_SESSION_TTL_S,
        help=f"seconds a session may stay idle before it is closed (default {DEFAULT_SESSION_TTL_S:g})",
    )
    serve.add_argument("-v", "--verbose", action="store_true", help="log every request to stderr")
    serve.set_defaults(func=_cmd_serve)
