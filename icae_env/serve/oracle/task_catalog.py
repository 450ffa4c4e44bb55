"""The tasks an Oracle server can answer about, and one shared router index per (task, level).

A task id resolves, in order, as an alias (``realcode@001``) or ``owner__repo`` key of the ICAE-Bench data root
(when one is given), then as a built-in task (``builtin/<name>`` or ``<name>``); other paths are never read. Each
resolves to a canonical id (the alias, or ``builtin/<name>``) so that every spelling of a task shares one log and
one budget. Task data is loaded once per (id, level), and one router index per (task, level) serves every session.

Example:
    >>> catalog = TaskCatalog()
    >>> catalog.resolve("dep-resolver", "L1")[0]
    'builtin/dep-resolver'
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from icae_env.errors import IcaeImportError
from icae_env.icae_bench.load import load_icae_bench
from icae_env.registration import DEFAULT_ROUTER
from icae_env.tasks import list_tasks, load_task
from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.base import Match, Router
from icae_env.user_agent.grounded import check_router, documents_for, env_router_options, make_router, router_failures

__all__ = ["SharedRouter", "TaskCatalog"]

_BUILTIN = "builtin/"
_SAFE_ALIAS = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]*")


class SharedRouter:
    """One router index shared by every session of a (task, level); ``route`` calls are serialised."""

    def __init__(self, inner: Router) -> None:
        self.inner = inner
        self.name = inner.name
        self._lock = threading.Lock()

    def route(self, question: str) -> list[Match]:
        """Return the inner router's matches (one call at a time: routers need not be thread-safe)."""
        with self._lock:
            return self.inner.route(question)


class TaskCatalog:
    """Resolves task ids to (canonical id, level data) and hands out shared routers. Thread-safe.

    Args:
        data_root: An ICAE-Bench data root, or None for built-in tasks only.
        router: The router of every agent (a registered router name).
        router_options: The router's constructor options, over
            :data:`~icae_env.user_agent.grounded.ENV_ROUTER_DEFAULTS` (a failing ``llm`` endpoint falls back).

    Raises:
        UnknownNameError: for an unknown router.
        RouterOptionError: for an option the router does not take.
        EndpointConfigError: for the ``llm`` router without a base URL or model.
        IcaeImportError: when ``data_root`` is not an ICAE-Bench data root.
    """

    def __init__(
        self, data_root: Path | None = None, router: str = DEFAULT_ROUTER, router_options: dict[str, Any] | None = None
    ) -> None:
        self.router = check_router(router)
        self.router_options = env_router_options(self.router, router_options)
        if data_root is not None and not (Path(data_root) / "user_agent").is_dir():
            raise IcaeImportError(f"{data_root}: not an ICAE-Bench data root (no user_agent/ directory)")
        self.data_root = Path(data_root) if data_root is not None else None
        self._tasks: dict[tuple[str, str], tuple[str, UserAgentData]] = {}
        self._routers: dict[tuple[str, str], SharedRouter] = {}
        self._lock = threading.Lock()

    @property
    def router_count(self) -> int:
        """Router indexes built so far (one per task and level asked about)."""
        with self._lock:
            return len(self._routers)

    @property
    def router_fallbacks(self) -> int:
        """Questions whose routing failed (an ``llm`` endpoint's error or unusable reply) and got the fallback."""
        with self._lock:
            routers = list(self._routers.values())
        return sum(router_failures(r) for r in routers)

    def resolve(self, task_id: str, level: str) -> tuple[str, UserAgentData] | None:
        """Return (canonical task id, level data), cached; None when no task of that level matches."""
        with self._lock:
            cached = self._tasks.get((task_id, level))
        if cached is not None:
            return cached
        found = self._load_icae(task_id, level) or self._load_builtin(task_id, level)
        if found is None:
            return None
        with self._lock:
            return self._tasks.setdefault((task_id, level), found)

    def shared_router(self, canonical: str, level: str, data: UserAgentData) -> SharedRouter:
        """Return the router of (task, level), built on first use (outside the lock: building can take a while)."""
        with self._lock:
            shared = self._routers.get((canonical, level))
        if shared is None:
            built = SharedRouter(make_router(self.router, documents_for(data), **self.router_options))
            with self._lock:
                shared = self._routers.setdefault((canonical, level), built)
        return shared

    def _load_icae(self, task_id: str, level: str) -> tuple[str, UserAgentData] | None:
        if self.data_root is None or not _SAFE_ALIAS.fullmatch(task_id) or ".." in task_id:
            return None
        try:
            task = load_icae_bench(self.data_root, task_id, level)
        except IcaeImportError:
            return None
        return task.id, task.user_agent_data(level)

    @staticmethod
    def _load_builtin(task_id: str, level: str) -> tuple[str, UserAgentData] | None:
        name = _BUILTIN + task_id.removeprefix(_BUILTIN)
        if name not in list_tasks():
            return None
        task = load_task(name)
        return (name, task.user_agent_data(level)) if level in task.levels else None
