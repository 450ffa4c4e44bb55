"""``icae-env oracle serve``: the HTTP API of ICAE-Bench's reference Oracle, backed by :class:`OracleService`.

:class:`OracleServer` puts :class:`~icae_env.user_agent.oracle.OracleService` on the reference's three ports
(init, interaction, stats; JSON over ``POST /``), as ``../shared/icae-format.md`` section 5 describes. Domain
errors (``invalid append_id`` ...) are HTTP 200 with ``status.ok`` false, as a client of the reference expects.
Other paths get 404 and other methods on ``/`` 405 (``Allow: POST``). Bodies may be framed by ``Content-Length``
or chunked (as Node's ``http.request`` + ``write`` sends them); unusable ones (empty, not a UTF-8 JSON object,
over :data:`MAX_BODY_BYTES`, another transfer coding) get HTTP 400/413/501 and unexpected failures HTTP 500, always
with a JSON body of the endpoint's shape. The ``Content-Type`` header is not checked (``curl -d`` works).

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
from urllib.parse import urlsplit

from icae_env.errors import ArgumentError
from icae_env.registration import DEFAULT_ROUTER
from icae_env.user_agent.grounded import DEFAULT_BUDGET, ROUTERS
from icae_env.user_agent.oracle import OracleService
from icae_env.user_agent.oracle_http import MAX_BODY_BYTES, HttpError, decode_json, read_body
from icae_env.user_agent.oracle_protocol import (
    DEFAULT_MAX_SESSIONS,
    DEFAULT_PORTS,
    DEFAULT_SESSION_TTL_S,
    DIFFICULTIES,
    ENDPOINTS,
    PUBLISHED_KEY,
    error_response,
)

__all__ = [
    "DEFAULT_PORTS",
    "DIFFICULTIES",
    "ENDPOINTS",
    "MAX_BODY_BYTES",
    "PUBLISHED_KEY",
    "OracleServer",
    "OracleService",
    "add_oracle_commands",
    "error_response",
]


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
    """JSON over ``POST /``; 404 for other paths, 405 for other methods. Never lets an exception escape."""

    server: _EndpointServer
    server_version = "icae-env-oracle"
    timeout = 120  # seconds a client may take to send its request

    def do_POST(self) -> None:
        """Answer one endpoint request."""
        if not self._at_root():
            return
        endpoint = self.server.endpoint
        try:
            status, body = HTTPStatus.OK, self.server.respond(decode_json(read_body(self.headers, self.rfile)))
        except HttpError as exc:
            status, body = exc.status, error_response(endpoint, str(exc))
        except Exception as exc:
            if self.server.verbose:
                traceback.print_exc()
            message = f"internal error: {type(exc).__name__}: {exc}"
            status, body = HTTPStatus.INTERNAL_SERVER_ERROR, error_response(endpoint, message)
        self._send(status, body)

    def _refuse_method(self) -> None:
        if self._at_root():
            message = f"method {self.command} not allowed (POST / only)"
            self._send(HTTPStatus.METHOD_NOT_ALLOWED, error_response(self.server.endpoint, message), allow=True)

    do_GET = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _refuse_method

    def _at_root(self) -> bool:
        """Whether the request is for ``/``; otherwise answer 404."""
        path = urlsplit(self.path).path
        if path == "/":
            return True
        self._send(HTTPStatus.NOT_FOUND, error_response(self.server.endpoint, f"not found: {path} (POST / only)"))
        return False

    def _send(self, status: HTTPStatus, body: dict[str, Any], allow: bool = False) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            if allow:
                self.send_header("Allow", "POST")
            self.end_headers()
            if self.command != "HEAD":
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
        ArgumentError: unless exactly three ports are given.
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
            raise ArgumentError(f"expected {len(ENDPOINTS)} ports (init, interaction, stats), got {list(ports)}")
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


def _key_arg(text: str) -> str:
    if not text:
        raise argparse.ArgumentTypeError("the key must not be empty")
    return text


def _banner(server: OracleServer, service: OracleService, state_dir: Path | None) -> str:
    urls = ", ".join(f"{name} {url}" for name, url in server.urls.items())
    source = f"data root {service.data_root} and built-in tasks" if service.data_root else "built-in tasks"
    state = f"state in {state_dir}" if state_dir else "state in memory, lost on exit (see --state-dir)"
    keyless = "; keyless init allowed" if service.allow_keyless else ""
    settings = f"router {service.router}, budget {service.default_budget}; {state}{keyless}"
    return f"icae-env oracle: {urls} ({source}; {settings})"


def _cmd_serve(args: argparse.Namespace) -> int:
    service = OracleService(
        args.data_root,
        router=args.router,
        default_budget=args.budget,
        max_sessions=args.max_sessions,
        session_ttl_s=args.session_ttl,
        key=args.key,
        allow_keyless=args.allow_keyless,
        state_dir=args.state_dir,
        fsync=args.fsync,
    )
    with service:
        try:
            server = OracleServer(service, host=args.host, ports=args.ports, verbose=args.verbose)
        except OSError as exc:
            print(f"icae-env: error: cannot listen on {args.host} ports {args.ports}: {exc}", file=sys.stderr)
            return 2
        with server:
            print(_banner(server, service, args.state_dir), flush=True)
            server.serve_forever()
    return 0


def _add_session_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--budget",
        type=_budget_arg,
        default=DEFAULT_BUDGET,
        help=f"max_interactions when init gives none (default {DEFAULT_BUDGET})",
    )
    serve.add_argument(
        "--key",
        type=_key_arg,
        default=PUBLISHED_KEY,
        help="the init key (default: the key the ICAE-EVAL harness sends); other keys get 'invalid key'",
    )
    serve.add_argument(
        "--allow-keyless",
        action="store_true",
        help="also accept an init without a key (local experiments only: any client can then mint sessions)",
    )
    serve.add_argument(
        "--state-dir",
        type=Path,
        default=None,
        help="keep sessions and logs in this directory: they survive a restart (default: in memory only)",
    )
    serve.add_argument("--fsync", action="store_true", help="fsync every state write (survives power loss; slower)")
    serve.add_argument(
        "--max-sessions",
        type=_positive_arg(int),
        default=DEFAULT_MAX_SESSIONS,
        help=f"sessions held in memory; the least recently used is evicted, not lost (default {DEFAULT_MAX_SESSIONS})",
    )
    serve.add_argument(
        "--session-ttl",
        type=_positive_arg(float),
        default=DEFAULT_SESSION_TTL_S,
        help=f"idle seconds before a session is evicted from memory, never lost (default {DEFAULT_SESSION_TTL_S:g})",
    )


def add_oracle_commands(subparsers: Any) -> None:
    """Register ``oracle serve`` on an argparse subparsers object.

    ``oracle serve [--data-root DIR] [--host H] [--ports I,Q,S] [--router NAME] [--budget N] [--key KEY]
    [--allow-keyless] [--state-dir DIR] [--fsync] [--max-sessions N] [--session-ttl S] [-v]`` serves until
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
    serve.add_argument("--router", choices=sorted(ROUTERS), default=DEFAULT_ROUTER, help="question router")
    _add_session_arguments(serve)
    serve.add_argument("-v", "--verbose", action="store_true", help="log every request to stderr")
    serve.set_defaults(func=_cmd_serve)
