"""Reach an app inside a network-isolated sandbox through a Unix socket in its workspace.

Sandboxes have no network (bwrap's own network namespace, or a container with ``network_mode="none"``), so an app
listening on the sandbox's loopback cannot be reached from the host directly. Both backends keep the workspace on a
host directory, so a Unix socket placed there is shared: inside the sandbox this file runs as a script that
forwards each connection on the socket to the app's TCP port; on the host :class:`HostRelay` listens on a free
loopback port and forwards each connection to the socket. The sandbox stays offline; only the host reaches the app.

This module must stay standard-library only: it is copied into the sandbox and run by its ``python3``.
"""

from __future__ import annotations

import socket
import sys
import threading

__all__ = ["HostRelay", "pump", "serve_unix_to_tcp"]

_CHUNK = 65536


def pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy bytes from ``source`` to ``sink`` until end of stream, then half-close ``sink``."""
    try:
        while True:
            data = source.recv(_CHUNK)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _bridge(client: socket.socket, upstream: socket.socket) -> None:
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def serve_unix_to_tcp(socket_path: str, port: int) -> None:
    """Accept connections on the Unix socket ``socket_path`` and forward each to ``127.0.0.1:port`` (forever)."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(socket_path)
    server.listen(128)
    while True:
        client, _ = server.accept()
        threading.Thread(target=_connect_and_bridge, args=(client, port), daemon=True).start()


def _connect_and_bridge(client: socket.socket, port: int) -> None:
    try:
        upstream = socket.create_connection(("127.0.0.1", port), timeout=10)
        upstream.settimeout(None)
    except OSError:
        client.close()
        return
    _bridge(client, upstream)


class HostRelay:
    """Listen on a free ``127.0.0.1`` port and forward each connection to a Unix socket.

    Args:
        socket_path: The host path of the Unix socket served inside the sandbox.

    Attributes:
        port: The loopback port to connect to.
    """

    def __init__(self, socket_path: str) -> None:
        self.socket_path = socket_path
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(128)
        self.port: int = self._server.getsockname()[1]
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="icae-relay", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._forward, args=(client,), daemon=True).start()

    def _forward(self, client: socket.socket) -> None:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(self.socket_path)
        except OSError:
            client.close()
            upstream.close()
            return
        _bridge(client, upstream)

    def close(self) -> None:
        """Stop listening (open connections end with their peers); safe to call twice."""
        if self._closed.is_set():
            return
        self._closed.set()
        try:
            self._server.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._server.close()
        self._thread.join(timeout=2)


if __name__ == "__main__":  # pragma: no cover - runs inside the sandbox
    serve_unix_to_tcp(sys.argv[1], int(sys.argv[2]))
