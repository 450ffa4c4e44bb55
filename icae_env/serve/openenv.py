"""Serve a registered icae env through OpenEnv: HTTP + WebSocket sessions (``icae-env serve openenv``).

Built on OpenEnv's ``HTTPEnvServer`` (what ``openenv.core.create_app`` wraps), which gives the routes
(``/ws``, ``/reset``, ``/step``, ``/state``, ``/schema``, ``/health``, ``/metadata``) and runs each WebSocket
session's ``reset`` and ``step`` in that session's own worker thread. What this module adds:

* every WebSocket session gets its own :class:`~icae_env.serve.environment.IcaeOpenEnv` (its own env and
  sandbox), at most ``max_sessions`` at once (one more is refused with OpenEnv's ``CAPACITY_REACHED`` error);
* a session idle for ``idle_timeout_s`` (no reset or step running or finished in that time) is closed with its
  sandbox; a step that runs longer than that is never cut;
* the HTTP routes keep no session (each request gets a fresh environment): ``POST /step`` answers 409 with a
  message pointing to the WebSocket, an icae-env argument error 400, never a 500;
* on shutdown (SIGTERM, SIGINT) every live env is closed, which kills its sandbox's processes and deletes its
  temp directory; the directories of a SIGKILLed server are named after its pid and removed by
  :func:`icae_env.sandbox.local.reap_stale_dirs` (which every new local sandbox runs).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import socket
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym

import icae_env
from icae_env.errors import ArgumentError, ConfigError, IcaeEnvError, check_int
from icae_env.registration import unknown
from icae_env.serve._deps import ConcurrencyConfig, FastAPI, HTTPEnvServer, JSONResponse, uvicorn
from icae_env.serve.environment import IcaeOpenEnv, NoEpisode
from icae_env.serve.models import IcaeAction, IcaeObservation, IcaeState

__all__ = ["IcaeEnvServer", "IcaeOpenEnv", "create_openenv_app", "serve_app"]

log = logging.getLogger(__name__)

DEFAULT_MAX_SESSIONS = 4
DEFAULT_IDLE_TIMEOUT_S = 600.0
_GRACEFUL_SHUTDOWN_S = 5
_WS_MAX_BYTES = 64 * 1024 * 1024  # a write_file action may carry 5,000,000 characters
_HTTP_STEP_HINT = (
    "HTTP POST /step keeps no session: every request gets a fresh environment that was never reset. "
    "Step over the WebSocket /ws instead (icae_env.serve.OpenEnvClient), after a reset there."
)


class IcaeEnvServer(HTTPEnvServer):
    """OpenEnv's server for one icae env id, with idle-session reaping that never cuts a running step.

    Args:
        env_id: A registered icae env id.
        env_kwargs: Arguments of ``icae_env.make`` for every session.
        max_sessions: WebSocket sessions open at once.
        idle_timeout_s: Seconds a session may stay idle before it and its sandbox are closed.
    """

    def __init__(
        self,
        env_id: str,
        env_kwargs: Mapping[str, Any] | None = None,
        *,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
    ) -> None:
        self.live: weakref.WeakSet[IcaeOpenEnv] = weakref.WeakSet()
        factory = functools.partial(IcaeOpenEnv, env_id, dict(env_kwargs or {}), live=self.live)
        config = ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=idle_timeout_s)
        super().__init__(
            factory, IcaeAction, IcaeObservation, concurrency_config=config, env_name=env_id.replace("/", "-"),
            state_cls=IcaeState,
        )  # fmt: skip

    async def _reap_idle_sessions(self) -> None:
        """Close sessions idle for longer than the timeout (OpenEnv's reaper would also close a busy one)."""
        timeout = self._session_idle_timeout_s
        while timeout is not None:
            await asyncio.sleep(min(max(timeout / 4, 0.1), 5.0))
            try:
                for session_id in self._idle_sessions(timeout):
                    await self._destroy_session(session_id)
            except Exception as exc:  # the reaper must outlive one failed close
                log.warning("closing an idle session failed (retried later): %s", exc)

    def _idle_sessions(self, timeout: float) -> list[str]:
        idle = []
        for session_id, env in list(self._sessions.items()):
            if isinstance(env, IcaeOpenEnv) and env.idle_s() > timeout:
                env.expire(f"idle for more than {timeout:g} s")
                idle.append(session_id)
        return idle

    def close_all(self) -> None:
        """Close every live env (and so its sandbox); what the server does when it shuts down."""
        for env in list(self.live):
            env.close("the server shut down")


def _check_env(env_id: str, env_kwargs: Mapping[str, Any]) -> None:
    if env_id not in gym.registry:
        raise unknown("env id", env_id, [name for name in gym.registry if name.startswith("icae/")])
    try:
        env = icae_env.make(env_id, **env_kwargs)
    except TypeError as exc:
        raise ArgumentError(f"{env_id}: {exc}") from None
    env.close()


def _json_error(status: int) -> Callable[..., Any]:
    async def handler(request: Any, exc: Exception) -> JSONResponse:
        detail = f"no episode to step: {_HTTP_STEP_HINT}" if isinstance(exc, NoEpisode) else str(exc)
        return JSONResponse(status_code=status, content={"detail": detail})

    return handler


def create_openenv_app(
    env_id: str,
    env_kwargs: Mapping[str, Any] | None = None,
    *,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
) -> Any:
    """Build the FastAPI app serving ``env_id``; its server is ``app.state.icae_server``.

    Args:
        env_id: A registered icae env id.
        env_kwargs: Arguments of ``icae_env.make`` for every session (checked once by building an env).
        max_sessions: WebSocket sessions open at once (>= 1).
        idle_timeout_s: Seconds a session may stay idle before it and its sandbox are closed (> 0).

    Raises:
        UnknownNameError: for an env id that is not registered.
        ArgumentError: for a bad argument of the server or of the env.
    """
    check_int("max_sessions", max_sessions, 1)
    if isinstance(idle_timeout_s, bool) or not isinstance(idle_timeout_s, (int, float)) or not idle_timeout_s > 0:
        raise ArgumentError(f"idle_timeout_s must be a number of seconds > 0, got {idle_timeout_s!r}")
    kwargs = dict(env_kwargs or {})
    _check_env(env_id, kwargs)
    app = FastAPI(title=f"icae-env {env_id} (OpenEnv)", version=icae_env.__version__)
    server = IcaeEnvServer(env_id, kwargs, max_sessions=max_sessions, idle_timeout_s=float(idle_timeout_s))
    server.register_routes(app, mode="simulation")
    app.add_exception_handler(NoEpisode, _json_error(409))
    app.add_exception_handler(IcaeEnvError, _json_error(400))
    app.router.on_shutdown.append(server.close_all)
    app.state.icae_server = server
    return app


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host} port {port}: {exc}") from None
    return sock


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, closing every env as soon as shutdown starts: running steps end now, not after a wait."""

    def __init__(self, config: Any, close_all: Callable[[], None]) -> None:
        super().__init__(config)
        self._close_all = close_all

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._close_all()
        await super().shutdown(sockets)


def serve_app(
    app: Any, host: str = "127.0.0.1", port: int = 8000, on_listen: Callable[[str], None] | None = None
) -> None:
    """Serve ``app`` (from :func:`create_openenv_app`) with uvicorn until SIGINT or SIGTERM.

    Args:
        app: The app.
        host: Address to listen on.
        port: Port (0 picks a free one; ``on_listen`` is given the URL).
        on_listen: Called with the base URL once the socket listens, before serving.

    Raises:
        ConfigError: when the address cannot be bound.
    """
    sock = _listen(host, port)
    bound = sock.getsockname()[1]
    if on_listen is not None:
        on_listen(f"http://[{host}]:{bound}" if ":" in host else f"http://{host}:{bound}")
    config = uvicorn.Config(
        app, log_level="warning", timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN_S, ws_max_size=_WS_MAX_BYTES
    )
    try:
        _Uvicorn(config, app.state.icae_server.close_all).run(sockets=[sock])
    finally:
        app.state.icae_server.close_all()
        sock.close()
