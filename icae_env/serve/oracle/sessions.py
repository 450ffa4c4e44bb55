"""The Oracle server's working set: the sessions held in memory, pinned while in use, evicted when idle or LRU.

Eviction only drops the in-memory copy (the agents and the loaded logs); the store keeps every session, and the
next request for an evicted session loads it again. A session is never evicted while a request uses it, so one
``append_id`` never has two live copies.

Example:
    >>> from icae_env.serve.oracle.protocol import SessionSettings
    >>> from icae_env.serve.oracle.store import MemoryStore
    >>> store = MemoryStore()
    >>> sessions = LiveSessions(store, max_sessions=1, session_ttl_s=60.0)
    >>> for append_id in ("a" * 32, "b" * 32):
    ...     store.create_session(append_id, SessionSettings("m", "normal", 16, False))
    ...     sessions.admit(LiveSession(append_id, store.load_session(append_id)))
    >>> sessions.count, sessions.evicted
    (1, 1)
    >>> with sessions.use("a" * 32) as session:
    ...     session.settings.max_interactions
    16
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from icae_env.serve.oracle.interaction_log import TaskLog
from icae_env.serve.oracle.protocol import SessionSettings, is_append_id
from icae_env.serve.oracle.store import SessionStore
from icae_env.user_agent.grounded import GroundedUserAgent

__all__ = ["LiveSession", "LiveSessions", "LiveTask"]


@dataclass
class LiveTask:
    """One task of a live session: its log, the agent answering it (rebuilt on demand) and its lock."""

    log: TaskLog
    agent: GroundedUserAgent | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class LiveSession:
    """A session in memory: its settings, the tasks loaded so far, and how many requests use it now."""

    append_id: str
    settings: SessionSettings
    tasks: dict[str, LiveTask] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = 0.0
    users: int = 0


class LiveSessions:
    """The sessions held in memory, least recently used first. Thread-safe.

    Args:
        store: Where sessions are loaded from when not live.
        max_sessions: Sessions held at most (sessions in use are never evicted, so this can be exceeded briefly).
        session_ttl_s: Idle seconds before a session is evicted.
        clock: Seconds as a float, monotonic.
    """

    def __init__(
        self,
        store: SessionStore,
        max_sessions: int,
        session_ttl_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store, self.max_sessions, self.session_ttl_s, self._clock = store, max_sessions, session_ttl_s, clock
        self._live: OrderedDict[str, LiveSession] = OrderedDict()
        self._lock = threading.Lock()
        self._evicted = 0

    @property
    def count(self) -> int:
        """Sessions in memory now."""
        with self._lock:
            return len(self._live)

    @property
    def evicted(self) -> int:
        """Evictions so far."""
        with self._lock:
            return self._evicted

    def admit(self, session: LiveSession) -> None:
        """Hold a new session (already in the store), evicting others to make room."""
        with self._lock:
            self._evict_idle()
            session.last_used = self._clock()
            self._live[session.append_id] = session
            self._shrink()

    @contextmanager
    def use(self, append_id: Any) -> Iterator[LiveSession | None]:
        """Yield the session of ``append_id``, loaded from the store when not live, pinned; None when unknown."""
        session = self._checkout(append_id)
        try:
            yield session
        finally:
            if session is not None:
                with self._lock:
                    session.users -= 1
                    session.last_used = self._clock()
                    self._live.move_to_end(session.append_id)
                    self._shrink()

    def _checkout(self, append_id: Any) -> LiveSession | None:
        if not is_append_id(append_id):
            return None
        with self._lock:
            self._evict_idle()
            session = self._live.get(append_id)
            if session is not None:
                session.users += 1
                return session
        settings = self.store.load_session(append_id)  # outside the lock: may read a file
        if settings is None:
            return None
        with self._lock:
            session = self._live.setdefault(append_id, LiveSession(append_id, settings))
            session.users += 1
            self._live.move_to_end(append_id)
            self._shrink()
        return session

    def _evict_idle(self) -> None:
        """Evict the sessions idle for ``session_ttl_s`` (the caller holds the lock).

        Stops at the first session that is recent or in use (it moves to the end when released), so a request
        costs O(1) amortised.
        """
        now = self._clock()
        while self._live:
            append_id, session = next(iter(self._live.items()))
            if session.users or now - session.last_used < self.session_ttl_s:
                return
            del self._live[append_id]
            self._evicted += 1

    def _shrink(self) -> None:
        """Evict least recently used sessions not in use until at most ``max_sessions`` are live (lock held)."""
        excess = len(self._live) - self.max_sessions
        if excess <= 0:
            return
        victims: list[str] = []
        for append_id, session in self._live.items():
            if len(victims) == excess:
                break
            if session.users == 0:
                victims.append(append_id)
        for append_id in victims:
            del self._live[append_id]
        self._evicted += len(victims)
