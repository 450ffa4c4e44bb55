"""Certify every task of an ICAE-Bench data root before it is used: its data loads, and its golden passes.

For each task, :func:`certify_task` loads every level (a failure, a missing level, no hidden tiers or no golden is
``data-error``), makes the sandbox of the task's language and checks its image is present (``image-missing``,
before anything runs), runs an empty workspace in it (the tool versions of the task's toolchain; an empty workspace
must pass no case), then scores the golden on every tier with ICAE's time limits, where the golden ships
``rcb_tests/test.sh`` or its test-case tree does (``rcb_tests_repos/<key>/rcb_tests/test.sh``, laid over a copy
of the golden; ``no-harness`` when neither has one: the golden is upstream source only). A golden that passes
every case is ``ok``; otherwise ``golden-fails`` (or ``timeout`` when a case ran out of time) with the failing
cases.

:func:`certify_icae` does this for many tasks, ``jobs`` at a time (threads: the work runs in sandboxes), writes a
status file per task (:mod:`icae_env.icae_bench.status`) as each one finishes, and skips tasks whose status
file is current (same data, golden and sandbox backend) and final (``image-missing`` and ``timeout`` are tried
again) unless ``force``. ``icae-env icae certify`` is its command line; ``--certified`` restricts runs to
the ``ok`` tasks.
"""

from __future__ import annotations

import shlex
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from icae_env.errors import ArgumentError, IcaeEnvError, SandboxError
from icae_env.icae_bench.load import load_icae_bench
from icae_env.icae_bench.refs import LEVEL_DIRS, icae_aliases, record_levels
from icae_env.icae_bench.status import (
    FINAL_STATUSES,
    FailingCase,
    Status,
    TaskStatus,
    TierCount,
    fingerprint,
    is_current,
    read_status,
    status_dir,
    task_dirs,
    write_status,
)
from icae_env.progress import draw_progress
from icae_env.sandbox.images import image_exists, missing_image_hint
from icae_env.sandbox.spec import SandboxSpec
from icae_env.scoring import ScoreLimits, ScoreReport, score
from icae_env.tasks.models import Task

__all__ = ["CertifyRun", "certify_icae", "certify_task"]

_VERSION_ARGS = {"go": "version", "kotlinc": "-version"}
_PROBE_TIMEOUT_S = 120.0


def _version() -> str:
    import icae_env

    return icae_env.__version__


def _load_levels(root: str | Path, alias: str) -> Task:
    """Load every level of ``alias``; return the task at its first level.

    Raises:
        IcaeEnvError: for a level that fails to load, a missing level, no hidden tier or no golden.
    """
    levels = record_levels(root, alias)
    missing = [lv for lv in LEVEL_DIRS if lv not in levels]
    if not levels:
        raise ArgumentError(f"task {alias!r} has no record file in {Path(root) / 'user_agent'}")
    tasks = [load_icae_bench(root, alias, lv) for lv in levels]
    task = tasks[0]
    problems = [f"missing levels {', '.join(missing)}"] if missing else []
    absent = [t for t in ("native", "enhanced") if t not in task.available_tiers]
    if absent:
        problems.append(f"no {' or '.join(absent)} cases (rcb_tests_repos/<key> missing or empty)")
    if task.golden_dir is None:
        problems.append("no golden (realcode_repos/<key> missing)")
    if problems:
        raise ArgumentError("; ".join(problems))
    return task


def _probe_script(tools: Sequence[str]) -> str:
    lines = []
    for tool in tools:
        quoted = shlex.quote(tool)
        version = f"{quoted} {_VERSION_ARGS.get(tool, '--version')} 2>&1 | head -n 1"
        lines.append(
            f"if command -v {quoted} >/dev/null 2>&1; then echo {quoted}=$({version}); else echo {quoted}=; fi"
        )
    return "\n".join(lines) + "\nls -A | wc -l"


def _probe(box: Any, task: Task) -> dict[str, str | None]:
    """Run the empty workspace: the version line of each tool (None: not installed); the workspace must be empty."""
    box.start()
    try:
        result = box.exec(_probe_script(task.runtime.toolchain), timeout=_PROBE_TIMEOUT_S)
    finally:
        box.close()
    if result.exit_code != 0 or result.timed_out:
        raise SandboxError(f"the empty workspace did not run in the sandbox: {(result.stderr or result.stdout)[-300:]}")
    tools: dict[str, str | None] = {}
    for line in result.stdout.splitlines()[:-1]:
        name, _, version = line.partition("=")
        tools[name] = version.strip() or None
    return tools


def _failing(report: ScoreReport) -> tuple[FailingCase, ...]:
    return tuple(
        FailingCase(tier=name, stem=case.stem, index=case.index, reason=str(case.reason))
        for name, tier in report.tiers.items()
        for case in tier.cases
        if not case.passed
    )


def _golden_verdict(report: ScoreReport) -> tuple[Status, str, tuple[FailingCase, ...]]:
    failed = {name: t.total - t.passed for name, t in report.tiers.items() if t.passed < t.total}
    if not failed:
        return "ok", "", ()
    failing = _failing(report)
    total = sum(t.total for t in report.tiers.values())
    per_tier = ", ".join(f"{name}: {n}" for name, n in failed.items())
    first = f"; first: {failing[0].tier} {failing[0].stem}@{failing[0].index} {failing[0].reason}" if failing else ""
    message = f"the golden fails {sum(failed.values())} of {total} cases ({per_tier}){first}"
    return ("timeout" if any(c.reason == "timeout" for c in failing) else "golden-fails"), message, failing


@dataclass
class _Clock:
    started: float = field(default_factory=time.monotonic)
    timings: dict[str, float] = field(default_factory=dict)

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.timings[name] = round(now - self.started - sum(self.timings.values()), 3)

    def done(self) -> dict[str, float]:
        return {**self.timings, "total_s": round(time.monotonic() - self.started, 3)}


def _run_empty(task: Task, spec: SandboxSpec, header: dict[str, Any]) -> tuple[Status, str] | None:
    """Check the image, then run an empty workspace in it; record image, tools and cases passed in ``header``."""
    box = spec.make(language=task.language)
    header["image"] = image = getattr(box, "image", None)
    if image is not None and not image_exists(image):
        return (
            "image-missing",
            f"image {image} for {task.language} is not present: {missing_image_hint(image)}",
        )
    header["tools"] = _probe(box, task)
    with tempfile.TemporaryDirectory(prefix="icae-empty-") as empty:
        header["empty_passed"] = sum(t.passed for t in score(task, empty, sandbox=spec, structure=False).tiers.values())
    if header["empty_passed"]:
        return "data-error", f"an empty workspace passes {header['empty_passed']} cases"
    return None


def _harness_of(root: str | Path, alias: str, golden: Path) -> Path | None:
    """The ``rcb_tests`` directory holding the golden's ``test.sh``: the golden's own, else the tests tree's."""
    if (golden / "rcb_tests" / "test.sh").is_file():
        return golden / "rcb_tests"
    tests = task_dirs(root, alias)[1]
    return tests / "rcb_tests" if tests is not None and (tests / "rcb_tests" / "test.sh").is_file() else None


def _run_golden(
    root: str | Path, alias: str, task: Task, spec: SandboxSpec, limits: ScoreLimits | None, header: dict[str, Any]
) -> tuple[Status, str]:
    """Score the golden on every tier; record the tiers and failing cases in ``header``.

    A golden without ``rcb_tests/test.sh`` is scored with the harness of the test-case tree
    (``rcb_tests_repos/<key>/rcb_tests/test.sh``) laid over a copy of it, when the release ships one there.
    """
    golden = task.golden_dir
    harness = None if golden is None else _harness_of(root, alias, golden)
    if golden is None or harness is None:
        return (
            "no-harness",
            f"the golden {golden.name if golden else ''} is upstream source only (no rcb_tests/test.sh in it or in "
            "its test-case tree)",
        )
    with tempfile.TemporaryDirectory(prefix="icae-golden-") as scratch:
        if harness.parent != golden:
            workspace = Path(scratch) / golden.name
            shutil.copytree(golden, workspace, symlinks=True)
            shutil.copytree(harness, workspace / "rcb_tests", symlinks=True, dirs_exist_ok=True)
            golden = workspace
        header["harness"] = "tests" if harness.parent != task.golden_dir else "golden"
        report = score(task, golden, structure=False, sandbox=spec, limits=limits)
    header["tiers"] = {
        name: TierCount(passed=t.passed, total=t.total, duration_s=round(t.duration_s, 3))
        for name, t in report.tiers.items()
    }
    status, message, header["failing_cases"] = _golden_verdict(report)
    return status, message


def certify_task(
    root: str | Path, alias: str, sandbox: SandboxSpec | str = "local", limits: ScoreLimits | None = None
) -> TaskStatus:
    """Certify one task of an ICAE-Bench data root (see the module docstring).

    Args:
        root: The data root.
        alias: The task alias.
        sandbox: The sandbox spec (or backend name) the golden and the empty workspace run in.
        limits: Scorer limits (None: the task's own, ICAE's).

    Returns:
        The task's :class:`TaskStatus` (not written anywhere).

    Raises:
        SandboxError: when the sandbox cannot be started (an infrastructure problem, not the task's).
    """
    spec = SandboxSpec.of(sandbox)
    clock = _Clock()
    data_sha, golden_sha = fingerprint(root, alias)
    header: dict[str, Any] = {"alias": alias, "data_sha256": data_sha, "golden_sha256": golden_sha}
    header.update(sandbox=spec.backend, icae_env_version=_version())
    try:
        task = _load_levels(root, alias)
    except IcaeEnvError as exc:
        clock.lap("load_s")
        return TaskStatus(**header, status="data-error", message=" ".join(str(exc).split()), timings=clock.done())
    clock.lap("load_s")
    header.update(language=task.language, levels=tuple(record_levels(root, alias)), notes=task.notes)
    verdict = _run_empty(task, spec, header)
    clock.lap("probe_s")
    if verdict is None:
        verdict = _run_golden(root, alias, task, spec, limits, header)
        clock.lap("golden_s")
    return TaskStatus(**header, status=verdict[0], message=verdict[1], timings=clock.done())


@dataclass
class CertifyRun:
    """What :func:`certify_icae` did.

    Attributes:
        statuses: One status per task, in alias order (reused ones included).
        reused: The aliases whose current status file was kept (not run again).
        out: The status directory.
        wall_s: Wall time of the run.
    """

    statuses: list[TaskStatus]
    reused: list[str]
    out: Path
    wall_s: float


class _Progress:
    """A one-line progress bar on stderr (nothing when disabled)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled, self.done = total, enabled, 0
        self.started = time.monotonic()
        self.lock = threading.Lock()

    def step(self, label: str) -> None:
        with self.lock:
            self.done += 1
            if self.enabled:
                draw_progress(self.done, self.total, self.started, label)

    def finish(self) -> None:
        if self.enabled and self.total:
            sys.stderr.write("\n")


def certify_icae(
    root: str | Path,
    aliases: Sequence[str] | None = None,
    *,
    sandbox: SandboxSpec | str = "local",
    jobs: int = 1,
    out: str | Path | None = None,
    force: bool = False,
    limits: ScoreLimits | None = None,
    progress: bool = True,
    on_status: Callable[[TaskStatus], None] | None = None,
) -> CertifyRun:
    """Certify the tasks of an ICAE-Bench data root and write a status file per task (see the module docstring).

    Args:
        root: The data root.
        aliases: The tasks to certify (default every alias of the root).
        sandbox: The sandbox spec (or backend name); the docker backend picks each task's image by language.
        jobs: Tasks certified at the same time.
        out: The status directory (default ``<root>/.certify``).
        force: Certify again even tasks with a current, final status file.
        limits: Scorer limits (None: each task's own, ICAE's).
        progress: Whether to draw a progress bar on stderr.
        on_status: Called with each new status as it is written.

    Returns:
        A :class:`CertifyRun`.

    Raises:
        ArgumentError: for ``jobs < 1`` or a root without tasks.
        SandboxError: when a sandbox cannot be started.
    """
    if jobs < 1:
        raise ArgumentError(f"jobs must be >= 1, got {jobs!r}")
    spec = SandboxSpec.of(sandbox)
    names = list(dict.fromkeys(aliases)) if aliases else icae_aliases(root)
    if not names:
        raise ArgumentError(f"{root}: no ICAE-Bench tasks (no repo_alias.json entries and no record files)")
    folder = status_dir(root, out)
    started = time.monotonic()
    done: dict[str, TaskStatus] = {}
    for alias in names if not force else ():
        previous = read_status(folder, alias)
        if previous is not None and previous.status in FINAL_STATUSES and is_current(previous, root, spec.backend):
            done[alias] = previous
    reused = [a for a in names if a in done]
    bar = _Progress(len(names) - len(reused), progress)
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="icae-certify")
    try:
        futures = [pool.submit(certify_task, root, a, spec, limits) for a in names if a not in done]
        for future in as_completed(futures):
            status = future.result()
            write_status(folder, status)
            done[status.alias] = status
            bar.step(f"{status.alias}: {status.status}")
            if on_status is not None:
                on_status(status)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # after a failure, tasks not started are dropped
        bar.finish()
    return CertifyRun([done[a] for a in names], reused, folder, time.monotonic() - started)
