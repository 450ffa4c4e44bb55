"""Plumbing of the ``docker`` sandbox: the engine client, and the container's own bash attached as a session.

Requires the ``docker`` extra (``pip install "icae-env[docker]"``) and a local Docker engine.
"""

from __future__ import annotations

import os
import subprocess
import threading
from functools import lru_cache
from typing import Any

from icae_env.errors import DependencyNotInstalled, SandboxError

__all__ = ["AttachedShell", "client", "host_pid_in_container", "init_pid"]


@lru_cache(maxsize=1)
def client() -> Any:
    """The Docker engine client (made once; raises when the extra or the engine is missing)."""
    try:
        import docker
    except ImportError:
        raise DependencyNotInstalled("docker", "docker") from None
    try:
        client = docker.from_env()
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any connection failure means no engine
        raise SandboxError(f"cannot reach the Docker engine ({exc}); is dockerd running?") from None
    return client


def host_pid_in_container(init_pid: int, inner_pid: int) -> int | None:
    """Return the host pid of the process whose pid is ``inner_pid`` inside the namespace of ``init_pid``."""
    try:
        namespace = os.readlink(f"/proc/{init_pid}/ns/pid")
    except OSError:
        return None
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry}/ns/pid") != namespace:
                continue
            with open(f"/proc/{entry}/status", encoding="utf-8") as handle:
                nspid = next((line.split()[1:] for line in handle if line.startswith("NSpid:")), [])
        except OSError:
            continue
        if nspid and nspid[-1] == str(inner_pid):
            return int(entry)
    return None


class _SocketWriter:
    """The ``stdin`` of an exec session: writes go straight to the attached socket."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock

    def write(self, data: bytes) -> None:
        self._sock.sendall(data)

    def flush(self) -> None:
        """Writes are not buffered."""

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass


class AttachedShell:
    """A ``Popen``-like handle on the container's own ``bash`` (its main process under Docker's init).

    The socket is attached before the container starts, so the session is live the moment the container runs (no
    ``docker exec``); a session that ends stops the container, and the next handle starts it again with the same
    mounts. Docker multiplexes the attached stream in frames (an 8-byte header: stream type, 3 zero bytes,
    big-endian size); a thread strips the headers and feeds stdout into a pipe, so the session reads it like a
    subprocess's.
    """

    pid = 0  # no local process: the session kills the shell through its host pid

    def __init__(self, container_id: str) -> None:
        api = client().api
        self._api, self._container_id = api, container_id
        sock = api.attach_socket(container_id, params={"stdin": 1, "stdout": 1, "stream": 1})
        self._raw = getattr(sock, "_sock", sock)
        api.start(container_id)
        read_fd, write_fd = os.pipe()
        self.stdout = os.fdopen(read_fd, "rb", buffering=0)
        self.stdin = _SocketWriter(self._raw)
        self._thread = threading.Thread(target=self._demux, args=(write_fd,), daemon=True, name="icae-docker-attach")
        self._thread.start()

    def _demux(self, write_fd: int) -> None:
        buffer = b""
        try:
            while chunk := self._raw.recv(65536):
                buffer += chunk
                while len(buffer) >= 8 and len(buffer) >= 8 + int.from_bytes(buffer[4:8], "big"):
                    size = int.from_bytes(buffer[4:8], "big")
                    payload, buffer = buffer[8 : 8 + size], buffer[8 + size :]
                    if payload:
                        view = memoryview(payload)
                        while view:
                            view = view[os.write(write_fd, view) :]
        except OSError:
            pass
        finally:
            os.close(write_fd)

    def _exit_code(self) -> int:
        try:
            code = self._api.inspect_container(self._container_id)["State"].get("ExitCode")
        except Exception:  # noqa: BLE001 - the container may be gone
            code = None
        return 0 if code is None else int(code)

    def poll(self) -> int | None:
        """None while the session runs, else its exit code."""
        return None if self._thread.is_alive() else self._exit_code()

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the session to end and return its exit code."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise subprocess.TimeoutExpired("docker attach", timeout or 0)
        return self._exit_code()


def init_pid(container_id: str) -> int:
    """The host pid of a running container's init process."""
    return int(client().api.inspect_container(container_id)["State"]["Pid"])
