"""The warm pool of the ``docker`` sandbox: started containers kept ready per configuration, filled in the background.

Entries are anything with a ``discard()`` method (the sandbox's prepared containers); a configuration is any
hashable key. :data:`POOL` is the process's pool, drained at interpreter exit.
"""

from __future__ import annotations

import atexit
import threading
from collections import deque
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["POOL", "WarmPool"]


class WarmPool:
    """Ready entries per configuration key, topped up by one background thread per key."""

    def __init__(self) -> None:
        self._queues: dict[Hashable, deque[Any]] = {}
        self._fillers: dict[Hashable, threading.Thread] = {}
        self._lock = threading.Lock()
        self._draining = threading.Event()

    def take(self, key: Hashable) -> Any | None:
        """Return a ready entry of ``key`` (None when there is none)."""
        with self._lock:
            queue = self._queues.get(key)
            return queue.popleft() if queue else None

    def size(self, key: Hashable) -> int:
        """How many ready entries ``key`` has now."""
        with self._lock:
            return len(self._queues.get(key, ()))

    def fill(self, key: Hashable, target: int, prepare: Callable[[], Any]) -> None:
        """Top ``key`` up to ``target`` entries made by ``prepare``, in a background thread (one per key)."""

        def run() -> None:
            try:
                while True:
                    with self._lock:
                        queue = self._queues.setdefault(key, deque())
                        if len(queue) >= target or self._draining.is_set():
                            return
                    entry = prepare()
                    with self._lock:
                        self._queues[key].append(entry)
            finally:
                with self._lock:
                    self._fillers.pop(key, None)

        with self._lock:
            if key in self._fillers:
                return
            thread = threading.Thread(target=run, daemon=True, name="icae-docker-pool")
            self._fillers[key] = thread
        thread.start()

    def drain(self) -> None:
        """Discard every ready entry, after in-flight fills finish."""
        self._draining.set()
        with self._lock:
            fillers = list(self._fillers.values())
        for thread in fillers:
            thread.join(timeout=60)
        self._draining.clear()
        with self._lock:
            entries = [entry for queue in self._queues.values() for entry in queue]
            self._queues.clear()
        for entry in entries:
            entry.discard()


POOL = WarmPool()
atexit.register(POOL.drain)
