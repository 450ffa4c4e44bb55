"""The registration tables: environments, task kinds, sandbox backends, User Agent routers and baseline agents.

Everything that is chosen by name is listed here, once, as plain strings (``"module:attr"`` entry points that
are imported on first use), so that optional extras stay optional and the tables can travel to Ray workers.

* :data:`ENV_FAMILIES`: ``icae/<Name>-v<N>`` ids; any change to behaviour or grading bumps ``N``.
* :data:`TASK_KINDS`: the task kinds (:class:`icae_env.core.TaskKind`), each with the env that runs it and the
  suite word that ``icae-env run --tasks`` expands to every task of the kind.
* :data:`SANDBOX_BACKENDS`, :data:`ROUTERS`, :data:`JUDGES`, :data:`AGENTS`, :data:`FAMILIES`: name -> entry point.
* :data:`TASK_SOURCES`: task-name prefix (``gen/``) -> the loader of such names.

Adding a task kind is one module (the kind) plus one :class:`KindEntry` row, given to :func:`register_kind` at
run time or added to :data:`TASK_KINDS`. Rows registered at run time are what :func:`runtime_rows` returns; the
run layer hands them to its Ray workers, which :func:`apply_rows` them before building environments.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from icae_env.errors import UnknownNameError

__all__ = [
    "AGENTS",
    "DEFAULT_ROUTER",
    "ENV_FAMILIES",
    "FAMILIES",
    "JUDGES",
    "ROUTERS",
    "SANDBOX_BACKENDS",
    "TASK_KINDS",
    "TASK_SOURCES",
    "EnvFamily",
    "KindEntry",
    "apply_rows",
    "kind_entries",
    "lazy_getattr",
    "load_entry_point",
    "register_envs",
    "register_kind",
    "resolve",
    "runtime_rows",
    "task_source",
]


@dataclass(frozen=True)
class EnvFamily:
    """One registered environment family.

    Attributes:
        id: ``icae/<Name>-v<N>``.
        entry_point: ``"module:Class"``.
        kwargs: Default constructor arguments (overridable in ``gymnasium.make``).
        nondeterministic: Whether the same seed and actions may give different results.
    """

    id: str
    entry_point: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    nondeterministic: bool = False


@dataclass(frozen=True)
class KindEntry:
    """One task kind.

    Attributes:
        name: The kind's name (``build``, ``revision``), also the ``kind=`` argument of the generic env.
        entry_point: ``"module:Class"`` of the :class:`~icae_env.core.TaskKind` implementation.
        env_id: The environment that runs the kind's tasks (``icae-env run`` picks it from the tasks).
        suite: The word ``--tasks`` expands to every task the kind lists (``builtin``, ``revision``).
        env: An environment family to register with the kind (None: ``env_id`` is registered already).
    """

    name: str
    entry_point: str
    env_id: str
    suite: str = ""
    env: EnvFamily | None = None


ENV_FAMILIES: tuple[EnvFamily, ...] = (
    EnvFamily(
        id="icae/ProjectBuild-v0",
        entry_point="icae_env.envs.project_build:ProjectBuildEnv",
        kwargs={"task": "builtin/config-lint", "level": "L1", "sandbox": "local", "budget": 16, "max_steps": 200},
    ),
    EnvFamily(
        id="icae/Clarify-v0",
        entry_point="icae_env.envs.clarify:ClarifyEnv",
        kwargs={"task": "builtin/config-lint", "level": "L1", "budget": 16, "question_cost": 0.02, "max_steps": 64},
    ),
    EnvFamily(
        id="icae/Revision-v0",
        entry_point="icae_env.envs.revision:RevisionEnv",
        kwargs={"task": "revision/todo-filter", "sandbox": "local", "budget": 0, "max_steps": 200},
    ),
)

#: Looked up in this order: the first kind that owns a task name runs it; ``build`` owns whatever is left.
TASK_KINDS: tuple[KindEntry, ...] = (
    KindEntry("revision", "icae_env.kinds.revision:RevisionKind", "icae/Revision-v0", suite="revision"),
    KindEntry("build", "icae_env.kinds.build:BuildKind", "icae/ProjectBuild-v0", suite="builtin"),
)

SANDBOX_BACKENDS: dict[str, str] = {
    "local": "icae_env.sandbox.local:LocalSandbox",
    "docker": "icae_env.sandbox.docker:DockerSandbox",
}

#: The router every env, User Agent and Oracle server uses unless told otherwise.
DEFAULT_ROUTER = "cascade"

ROUTERS: dict[str, str] = {
    "cascade": "icae_env.user_agent.routers.cascade:CascadeRouter",  # distilled + the shipped cross-encoder ensemble
    "distilled": "icae_env.user_agent.routers.distilled:DistilledRouter",  # the default before cascade
    "lexical": "icae_env.user_agent.routers.lexical:LexicalRouter",
    "embedding": "icae_env.user_agent.optional.embedding:EmbeddingRouter",
    "lexical-embedding": "icae_env.user_agent.optional.hybrid:HybridRouter",
    "llm": "icae_env.user_agent.optional.llm:LLMRouter",
}

#: Revision judges for ``judge`` checks (none by default: such checks are then reported ungraded).
JUDGES: dict[str, str] = {
    "llm": "icae_env.revision.llm_judge:Judge",  # judge-then-refute over an OpenAI-compatible endpoint
}

#: Task names by prefix that a loader other than the built-in suite and task packs reads: prefix -> ``"module:func"``
#: (the function takes the name and returns a task, or a distribution of tasks for a name without an index).
TASK_SOURCES: dict[str, str] = {
    "gen/": "icae_env.families:load_generated",
}

#: Procedural task families (:mod:`icae_env.families`): name -> ``"module:Class"``.
FAMILIES: dict[str, str] = {
    "ledger-report": "icae_env.families.catalog.ledger_report:LedgerReport",
    "dependency-order": "icae_env.families.catalog.dependency_order:DependencyOrder",
    "rate-limiter": "icae_env.families.catalog.rate_limiter:RateLimiter",
    "csv-validator": "icae_env.families.catalog.csv_validator:CsvValidator",
    "config-checker": "icae_env.families.catalog.config_checker:ConfigChecker",
    "version-ranges": "icae_env.families.catalog.version_ranges:VersionRanges",
    "retry-schedule": "icae_env.families.catalog.retry_schedule:RetrySchedule",
    "log-summary": "icae_env.families.catalog.log_summary:LogSummary",
    "schedule-next": "icae_env.families.catalog.schedule_next:ScheduleNext",
    "cart-pricing": "icae_env.families.catalog.cart_pricing:CartPricing",
    "timesheet-pay": "icae_env.families.catalog.timesheet_pay:TimesheetPay",
    "grade-book": "icae_env.families.catalog.grade_book:GradeBook",
}

AGENTS: dict[str, str] = {
    "llm": "icae_env.baselines.llm_agent:LLMAgent",
    "oracle": "icae_env.baselines.oracle_agent:OracleAgent",
    "random": "icae_env.baselines.random_agent:RandomAgent",
}

_TABLES: dict[str, dict[str, str]] = {
    "sandbox backend": SANDBOX_BACKENDS,
    "router": ROUTERS,
    "judge": JUDGES,
    "agent": AGENTS,
}
_KINDS: dict[str, KindEntry] = {entry.name: entry for entry in TASK_KINDS}
_RUNTIME: list[KindEntry] = []


def load_entry_point(entry_point: str) -> Any:
    """Import and return the attribute named by ``"module:attr"``."""
    module, _, attr = entry_point.partition(":")
    return getattr(importlib.import_module(module), attr)


def lazy_getattr(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """Return a module ``__getattr__`` (PEP 562) that imports each name of ``homes`` (name -> module) on first use.

    Packages whose public names live in modules that are costly or optional to import use it, so that importing the
    package stays cheap.
    """

    def module_getattr(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(homes[name]), name)

    return module_getattr


def unknown(what: str, name: object, known: list[str]) -> UnknownNameError:
    """Return the error for an unknown ``name`` of a table (``expected one of [...]``, a close match suggested)."""
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return UnknownNameError(f"unknown {what} {name!r}; expected one of {sorted(known)}{hint}")


def resolve(what: str, name: str) -> Any:
    """Return the object registered as ``name`` in table ``what``.

    Tables: ``sandbox backend``, ``router``, ``judge``, ``agent``.

    A ``"module:attr"`` string is accepted as well, for objects that are not in the table.

    Raises:
        UnknownNameError: for a name that is neither registered nor an entry point.
    """
    table = _TABLES[what]
    if isinstance(name, str) and name in table:
        return load_entry_point(table[name])
    if isinstance(name, str) and ":" in name:
        return load_entry_point(name)
    raise unknown(what, name, list(table))


def task_source(name: str) -> str | None:
    """Return the loader entry point of the :data:`TASK_SOURCES` prefix ``name`` starts with (None: no prefix)."""
    return next((loader for prefix, loader in TASK_SOURCES.items() if name.startswith(prefix)), None)


def kind_entries() -> list[KindEntry]:
    """Every registered task kind, in look-up order (run-time registrations first)."""
    runtime = [e for e in _KINDS.values() if e in _RUNTIME]
    return runtime + [e for e in _KINDS.values() if e not in _RUNTIME]


def kind_entry(name: str) -> KindEntry:
    """Return the kind registered as ``name``.

    Raises:
        UnknownNameError: naming the registered kinds.
    """
    if name not in _KINDS:
        raise unknown("task kind", name, list(_KINDS))
    return _KINDS[name]


def _register_env(family: EnvFamily) -> None:
    if family.id in gym.registry:
        return
    gym.register(
        id=family.id,
        entry_point=family.entry_point,
        kwargs=dict(family.kwargs),
        nondeterministic=family.nondeterministic,
        disable_env_checker=False,
        order_enforce=False,  # the env raises icae_env.errors.ResetNeeded itself, with a clearer message
    )


def register_kind(entry: KindEntry) -> None:
    """Register a task kind (and its environment family, when the entry carries one); idempotent per name."""
    if entry.name not in _KINDS:
        _KINDS[entry.name] = entry
        _RUNTIME.append(entry)
    if entry.env is not None:
        _register_env(entry.env)


def runtime_rows() -> tuple[KindEntry, ...]:
    """The kinds registered at run time (what a worker process must :func:`apply_rows` to build their envs)."""
    return tuple(_RUNTIME)


def apply_rows(rows: tuple[KindEntry, ...]) -> None:
    """Register ``rows`` (from :func:`runtime_rows` of another process) in this one."""
    for row in rows:
        register_kind(row)


def register_envs() -> None:
    """Register every family in :data:`ENV_FAMILIES` (idempotent)."""
    for family in ENV_FAMILIES:
        _register_env(family)
