"""``icae-env serve oracle``: the HTTP API of ICAE-Bench's reference Oracle, backed by :class:`OracleService`.

:class:`OracleServer` puts :class:`~icae_env.serve.oracle.service.OracleService` on the reference's three ports
(init, interaction, stats; JSON over ``POST /``), as ``docs/icae-format.md`` section 5 describes. Domain
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

import json
import socket
import threading
import traceback
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from icae_env.errors import ArgumentError
from icae_env.serve.oracle.http_body import HttpError, decode_json, read_body
from icae_env.serve.oracle.protocol import (
    DEFAULT_PORTS,
    ENDPOINTS,
    error_response,
)
from icae_env.serve.oracle.service import OracleService

__all__ = ["OracleServer"]


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
