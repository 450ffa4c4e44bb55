"""Generate one certified task: plan, golden, cases, pack files, the strict loader, certification.

A generated task is named ``gen/<family>/<split>/<index>`` (knobs other than the defaults follow as a query:
``gen/<family>/<split>/<index>?features=4&surprise=2``). It is built in memory and loaded by the pack loader from
there, so ``load_task(name)`` needs no disk. A task that fails certification is planned again with the next
attempt number (a new skin, seed and reveal set; the same behaviour key); after :data:`ATTEMPTS` it is rejected.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from pydantic import ValidationError

from icae_env.errors import ArgumentError, IcaeEnvError, TaskNotFoundError
from icae_env.families.cases import GenerationError, ablations, make_cases
from icae_env.families.certify import Certificate, certifier_digest, certify
from icae_env.families.pack_files import pack_files
from icae_env.families.plan import Knobs, plan_task
from icae_env.families.registry import get_family
from icae_env.families.spec import Family, Plan
from icae_env.tasks.memory_pack import MemoryPath
from icae_env.tasks.models import Task
from icae_env.tasks.pack import load_pack

__all__ = [
    "ATTEMPTS",
    "Generated",
    "TaskRejected",
    "build",
    "family_version",
    "generate",
    "parse_name",
    "task_name",
]

ATTEMPTS = 3
_CACHE: OrderedDict[tuple[Any, ...], Generated] = OrderedDict()
_CACHE_SIZE = 256
_CACHE_LOCK = threading.Lock()


class TaskRejected(TaskNotFoundError):
    """Every attempt at a task failed certification (the message lists why); the index is skipped."""


@dataclass(frozen=True)
class Generated:
    """A generated, certified task.

    Attributes:
        plan: What it was made from.
        task: The task, loaded by the strict pack loader.
        files: Its pack files (relative to the pack directory).
        certificate: What certification measured.
        attempt: Which attempt passed (0: the first).
        rejected: Why the earlier attempts failed.
    """

    plan: Plan
    task: Task
    files: dict[str, str]
    certificate: Certificate
    attempt: int
    rejected: tuple[str, ...] = ()


def task_name(family: str, split: str, index: int, knobs: Knobs | None = None) -> str:
    """``gen/<family>/<split>/<index>``, with the knobs that differ from the defaults as a query."""
    changed = (knobs or Knobs()).model_dump(exclude_defaults=True)
    query = f"?{urlencode(sorted(changed.items()))}" if changed else ""
    return f"gen/{family}/{split}/{index}{query}"


def parse_knobs(query: str) -> Knobs:
    """The knobs of a ``k=v&...`` query (values read as ints, booleans or text).

    Raises:
        ArgumentError: naming the bad knob.
    """
    raw: dict[str, Any] = {}
    for key, text in parse_qsl(query, keep_blank_values=True):
        lowered = text.lower()
        raw[key] = int(text) if text.lstrip("-").isdigit() else {"true": True, "false": False}.get(lowered, text)
    try:
        return Knobs.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ArgumentError(
            f"knob {'.'.join(map(str, first['loc']))}: {first['msg']} (got {first.get('input')!r})"
        ) from None


def family_version(family: Family) -> str:
    """The full version of ``family``'s tasks: ``<family version>+<certifier digest>`` (see :func:`parse_name`)."""
    return f"{family.version}+{certifier_digest()}"


def _check_version(family: str, pinned: str) -> None:
    current = get_family(family)
    wanted = str(current.version) if "+" not in pinned else family_version(current)
    if pinned != wanted:
        raise TaskNotFoundError(
            f"gen/{family}@{pinned} names tasks of another version of the family: this icae-env generates "
            f"{family}@{family_version(current)} (tasks of two versions are different tasks; install the icae-env "
            f"release that generated @{pinned}, or drop the @ to take the current version)"
        )


def parse_name(name: str) -> tuple[str, str, int | None, Knobs]:
    """``(family, split, index or None, knobs)`` of ``gen/<family>[@<version>]/<split>[/<index>][?knobs]``.

    A name may pin the family's version (``gen/csv-validator@2/train/0``) or its full version with the digest of
    the certification routers (``@2+<digest>``, as task metadata records it); a pinned version other than the
    current one is an error, never silently a different task.

    Raises:
        ArgumentError: for a name not of that form.
        TaskNotFoundError: for a pinned version this release does not generate.
        UnknownNameError: for an unknown family in a pinned name.
    """
    path, _, query = name.partition("?")
    parts = path.split("/")
    if parts[0] != "gen" or len(parts) not in (3, 4) or (len(parts) == 4 and not parts[3].isdigit()):
        raise ArgumentError(
            f"a generated task is named gen/<family>[@<version>]/<split>/<index>[?knob=value&...], got {name!r}"
        )
    family, _, pinned = parts[1].partition("@")
    if pinned:
        _check_version(family, pinned)
    return family, parts[2], int(parts[3]) if len(parts) == 4 else None, parse_knobs(query)


def build(family: Family, plan: Plan, route: bool = True) -> tuple[Task, dict[str, str], Certificate]:
    """Build the task of ``plan`` (golden, cases, pack files, the strict loader) and certify it; nothing is rejected.

    ``route=False`` skips the routing check (:func:`~icae_env.families.certify.certify`), for figures only.

    Raises:
        GenerationError: when no input distinguishes a decision (or a sampler misbehaves).
    """
    golden = family.golden(plan, "python")
    others = ablations(family, plan)
    cases = make_cases(family, plan, golden, others)
    files = pack_files(family, plan, cases, family_version(family))
    executables = frozenset(path for path in files if path.endswith(".sh"))
    root = MemoryPath(files, label=plan.task_id, executables=executables)
    task = load_pack(root, origin=task_name(plan.family, plan.split, plan.index, Knobs(**plan.knobs)))
    return task, files, certify(family, plan, task, golden, others, route)


def generate(family: str, split: str, index: int, knobs: Knobs | None = None) -> Generated:
    """Generate and certify task ``index`` of ``family``'s ``split`` (cached).

    Raises:
        UnknownNameError: for an unknown family.
        TaskNotFoundError: when the split has no such task; :class:`TaskRejected` when every attempt failed.
    """
    knobs = knobs or Knobs()
    ident = (family, split, index, knobs)
    with _CACHE_LOCK:
        if ident in _CACHE:
            _CACHE.move_to_end(ident)
            return _CACHE[ident]
    chosen = get_family(family)
    reasons: list[str] = []
    for attempt in range(ATTEMPTS):
        plan = plan_task(chosen, split, index, knobs, attempt)
        try:
            task, files, certificate = build(chosen, plan)
        except (GenerationError, IcaeEnvError) as exc:
            reasons.append(f"attempt {attempt}: {exc}")
            continue
        if certificate.ok:
            result = Generated(plan, task, files, certificate, attempt, tuple(reasons))
            with _CACHE_LOCK:
                _CACHE[ident] = result
                while len(_CACHE) > _CACHE_SIZE:
                    _CACHE.popitem(last=False)
            return result
        reasons.append(f"attempt {attempt}: {certificate.failures[0]}")
    raise TaskRejected(f"{task_name(family, split, index, knobs)} failed certification: " + "; ".join(reasons))
