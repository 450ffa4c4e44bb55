"""Start a revision task's app in a sandbox and reach it from the host on a free loopback port.

The app runs inside the sandbox (no network); :mod:`icae_env.revision.relay` bridges a host port to it through a
Unix socket in the workspace. :func:`running_app` yields the base URL once the ready route answers.
"""

from __future__ import annotations

import shlex
import shutil
import socket
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from icae_env.errors import IcaeEnvError
from icae_env.revision import relay
from icae_env.revision.models import AppSpec
from icae_env.sandbox.base import Sandbox

__all__ = ["AppStartError", "running_app", "http_opener", "APP_DIR"]

APP_DIR = ".icae-app"
MAX_LOG_BYTES = 16 * 1024 * 1024
_MAX_SOCKET_PATH = 100  # AF_UNIX paths are limited to 108 bytes
_RELAY_SOURCE = Path(relay.__file__).read_text(encoding="utf-8")


class AppStartError(IcaeEnvError, RuntimeError):
    """The app did not answer its ready route in time (the message ends with the tail of its log)."""


def http_opener() -> urllib.request.OpenerDirector:
    """Return a urllib opener that ignores proxy settings (the app is on loopback)."""
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _background(box: Sandbox, command: str, log: str, env: str = "") -> int:
    """Start ``command`` in its own session in the background, its output capped at ``MAX_LOG_BYTES`` in ``log``.

    Returns the pid (inside the sandbox) of the process that writes the log; it ends when the command's output
    closes, that is when the command exits.
    """
    inner = shlex.quote(command)
    line = f"({env} setsid bash -c {inner} 2>&1 < /dev/null | head -c {MAX_LOG_BYTES} > {APP_DIR}/{log} & echo $!)"
    result = box.exec(line, timeout=10)
    return int(result.stdout.strip().splitlines()[-1])


def _alive(box: Sandbox, pid: int) -> bool:
    return box.exec(f"kill -0 {pid} 2>/dev/null", timeout=10).exit_code == 0


def _answers(url: str) -> bool:
    try:
        with http_opener().open(url, timeout=2) as response:
            return int(response.status) < 500
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except (OSError, ValueError):
        return False


def app_log(box: Sandbox, limit: int = 4000) -> str:
    """Return the last ``limit`` bytes of the app's log in ``box`` ("" when there is none)."""
    result = box.exec(f"tail -c {int(limit)} {APP_DIR}/app.log 2>/dev/null", timeout=10)
    return result.stdout if result.ok else ""


def _tail(box: Sandbox) -> str:
    return app_log(box, 600).strip() or "(no output)"


@contextmanager
def running_app(box: Sandbox, app: AppSpec) -> Iterator[str]:
    """Start ``app`` in the started sandbox ``box`` and yield its base URL (``http://127.0.0.1:<port>``).

    The caller closes ``box`` afterwards, which stops the app.

    Raises:
        AppStartError: if the ready route does not answer within ``app.ready_timeout_s``.
    """
    if box.host_workspace is None:
        raise AppStartError("the app's relay needs a sandbox whose workspace is on this host")
    host_workspace = Path(box.host_workspace)
    port = _free_port()
    box.exec(f"mkdir -p {APP_DIR}", timeout=10)
    box.write_file(f"{APP_DIR}/relay.py", _RELAY_SOURCE)
    pid = _background(box, app.start.replace("{port}", str(port)), "app.log", env=f"PORT={port}")
    _background(box, f"exec python3 {APP_DIR}/relay.py {APP_DIR}/app.sock {port}", "relay.log")
    with _short_path(host_workspace / APP_DIR) as app_dir:
        host = relay.HostRelay(str(app_dir / "app.sock"))
        try:
            base = f"http://127.0.0.1:{host.port}"
            _wait_ready(box, app, base, pid)
            yield base
        finally:
            host.close()


@contextmanager
def _short_path(directory: Path) -> Iterator[Path]:
    """Yield ``directory``, or a short symlink to it when a socket path inside it would be too long."""
    if len(str(directory / "app.sock")) <= _MAX_SOCKET_PATH:
        yield directory
        return
    link_dir = Path(tempfile.mkdtemp(prefix="icae-"))
    try:
        (link_dir / "d").symlink_to(directory)
        yield link_dir / "d"
    finally:
        shutil.rmtree(link_dir, ignore_errors=True)


def _wait_ready(box: Sandbox, app: AppSpec, base: str, pid: int) -> None:
    deadline = time.monotonic() + app.ready_timeout_s
    while not _answers(base + app.ready_path):
        if not _alive(box, pid) and not _answers(base + app.ready_path):
            raise AppStartError(f"the app exited before answering {app.ready_path}; its log: {_tail(box)}")
        if time.monotonic() > deadline:
            raise AppStartError(
                f"the app did not answer {app.ready_path} within {app.ready_timeout_s:g} s; its log: {_tail(box)}"
            )
        time.sleep(0.05)
