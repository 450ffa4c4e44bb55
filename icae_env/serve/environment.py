""":class:`IcaeOpenEnv`: one OpenEnv session's environment, wrapping ``icae_env.make(env_id, **env_kwargs)``.

The icae env is built on the session's first ``reset`` (so the stateless HTTP routes, which build a fresh
environment per request, cost nothing until they reset) and closed with the session, which deletes its sandbox.
The server runs ``reset`` and ``step`` in the session's own worker thread, so a long step of one session never
blocks another; :meth:`IcaeOpenEnv.idle_s` tells the server's reaper how long the session has been idle (never
while a step runs).
"""

from __future__ import annotations

import time
import uuid
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import icae_env
from icae_env.errors import ArgumentError, IcaeEnvError, ResetNeeded
from icae_env.run.trajectory import jsonable
from icae_env.serve._deps import Environment, EnvironmentMetadata
from icae_env.serve.models import IcaeAction, IcaeObservation, IcaeState

__all__ = ["IcaeOpenEnv", "NoEpisode", "SessionClosed"]

_RESET_OPTIONS = ("task", "level")


class NoEpisode(ResetNeeded):
    """``step`` came before any ``reset`` of the session (always so for a session-less HTTP ``/step``)."""


class SessionClosed(IcaeEnvError):
    """The session's env is closed (idle too long, or the server is shutting down); open a new session."""


def _observation(obs: Mapping[str, Any], reward: float | None, ends: tuple[bool, bool], info: Any) -> IcaeObservation:
    terminated, truncated = ends
    return IcaeObservation(
        output=str(obs["output"]),
        source=int(obs["source"]),
        exit_code=int(obs["exit_code"]),
        questions_left=int(obs["questions_left"]),
        step=int(obs["step"]),
        reward=None if reward is None else float(reward),
        done=bool(terminated or truncated),
        terminated=bool(terminated),
        truncated=bool(truncated),
        info=jsonable(dict(info)),
    )


class IcaeOpenEnv(Environment[IcaeAction, IcaeObservation, IcaeState]):
    """An OpenEnv ``Environment`` running one icae env: ``reset``, ``step``, ``state``, ``close``.

    Args:
        env_id: A registered icae env id (``icae/ProjectBuild-v0``, ``icae/Clarify-v0``, ...).
        env_kwargs: Arguments of ``icae_env.make`` (``task``, ``max_steps``, ``sandbox``, ...).
        live: A set the instance adds itself to (the server closes every live one when it shuts down).
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(
        self,
        env_id: str,
        env_kwargs: Mapping[str, Any] | None = None,
        *,
        live: weakref.WeakSet[IcaeOpenEnv] | None = None,
    ) -> None:
        super().__init__()
        self.env_id = env_id
        self._kwargs = dict(env_kwargs or {})
        self._env: Any = None
        self._state = IcaeState(env_id=env_id)
        self._closed: str | None = None
        self._busy = False
        self._last_active = time.monotonic()
        if live is not None:
            live.add(self)

    def reset(self, seed: int | None = None, episode_id: str | None = None, **options: Any) -> IcaeObservation:
        """Start an episode; ``options`` may name the ``task`` and the ``level`` (as ``env.reset``'s options).

        Raises:
            ArgumentError: for another option.
            SessionClosed: after the session was closed.
        """
        unknown = sorted(set(options) - set(_RESET_OPTIONS))
        if unknown:
            raise ArgumentError(f"unknown reset argument(s) {unknown}; expected seed, episode_id, task, level")
        with self._activity():
            if self._env is None:
                self._env = icae_env.make(self.env_id, **self._kwargs)
            obs, info = self._env.reset(seed=seed, options=options or None)
        self._state = IcaeState(
            episode_id=episode_id or uuid.uuid4().hex,
            env_id=self.env_id,
            task=info.get("task"),
            level=info.get("level"),
        )
        return _observation(obs, None, (False, False), info)

    def step(self, action: IcaeAction, timeout_s: float | None = None, **kwargs: Any) -> IcaeObservation:
        """Carry out one action (``timeout_s`` is not used: a ``bash`` action carries its own ``timeout``).

        Raises:
            NoEpisode: before the session's first reset.
            ResetNeeded: after the episode ended.
            SessionClosed: after the session was closed.
        """
        with self._activity():
            if self._env is None or self._state.episode_id is None:
                raise NoEpisode("no episode to step in this session: send reset first")
            obs, reward, terminated, truncated, info = self._env.step(action.to_env())
        state = self._state
        state.step_count += 1
        state.total_reward += float(reward)
        state.done = bool(terminated or truncated)
        return _observation(obs, reward, (terminated, truncated), info)

    @property
    def state(self) -> IcaeState:
        """The session's episode (no task data: ids, counts and the reward so far)."""
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        """The env id and the icae-env version."""
        return EnvironmentMetadata(
            name=self.env_id,
            description=f"icae-env {self.env_id} served through OpenEnv (WebSocket sessions at /ws)",
            version=icae_env.__version__,
        )

    def idle_s(self) -> float:
        """Seconds since the last reset or step ended (0 while one runs)."""
        return 0.0 if self._busy else time.monotonic() - self._last_active

    def expire(self, reason: str) -> None:
        """Mark the session closed for ``reason`` (the next reset or step says so); :meth:`close` follows."""
        self._closed = self._closed or reason

    def close(self, reason: str = "closed by the server") -> None:
        """Close the icae env and its sandbox; safe to call twice."""
        self.expire(reason)
        env, self._env = self._env, None
        if env is not None:
            env.close()

    @contextmanager
    def _activity(self) -> Iterator[None]:
        if self._closed is not None:
            raise SessionClosed(
                f"this session is closed ({self._closed}); its env and sandbox are gone: open a new session"
            )
        self._busy = True
        try:
            yield
        finally:
            self._busy = False
            self._last_active = time.monotonic()
