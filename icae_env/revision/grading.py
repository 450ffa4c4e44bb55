"""Grade a final workspace against a revision task's hidden acceptance criteria.

:func:`grade` is a pure function of (task, final workspace): it takes one sanitised snapshot of the workspace
(:mod:`icae_env.sandbox.snapshot`), runs every check on a fresh sandbox copy of it or reads it, and stores each
criterion's evidence under ``evidence_dir/<criterion id>/`` (replacing what an earlier run left there).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from icae_env.errors import SandboxPathError
from icae_env.revision.app import APP_DIR, AppStartError, running_app
from icae_env.revision.checks.browser import BrowserSession, run_browser_check
from icae_env.revision.checks.command import run_command_check
from icae_env.revision.checks.common import CheckContext, CheckOutcome
from icae_env.revision.checks.http import run_http_check
from icae_env.revision.checks.judge import run_judge_check
from icae_env.revision.checks.source import run_source_check
from icae_env.revision.models import EVIDENCE_CATEGORIES, Criterion, RevisionTask, Verdict
from icae_env.revision.report import CriterionResult, RevisionReport
from icae_env.sandbox.snapshot import TEMP_PREFIX, take_snapshot
from icae_env.sandbox.spec import SandboxSpec
from icae_env.tasks.privileged import hidden_paths

__all__ = ["grade", "baseline_failure", "verdict_of", "temp_evidence_dir"]

_RUNNERS: dict[str, Callable[[Any, CheckContext], CheckOutcome]] = {
    "command": run_command_check,
    "source": run_source_check,
    "http": run_http_check,
    "browser": run_browser_check,
}
_REQUIRED_EVIDENCE = ("screenshot.png", "actions.log")
_baseline_cache: dict[tuple[str, str, str], str | None] = {}


def temp_evidence_dir() -> Path:
    """Create a temporary evidence directory named after this process (reaped like sandboxes if it is killed)."""
    return Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-evidence-"))


def verdict_of(outcome: CheckOutcome, partial: bool) -> tuple[Verdict, str]:
    """Return the verdict and reason of a check outcome (see :mod:`icae_env.revision.models`)."""
    if outcome.error is not None:
        return Verdict.FAIL, outcome.error
    failed = [a.detail for a in outcome.assertions if not a.passed]
    if outcome.verdict is not None:
        return outcome.verdict, failed[0] if failed else outcome.assertions[0].detail
    if not failed:
        return Verdict.PASS, "all assertions hold"
    held = len(outcome.assertions) - len(failed)
    if held and partial:
        return Verdict.PARTIAL, f"{held}/{len(outcome.assertions)} assertions hold; first failure: {failed[0]}"
    return Verdict.FAIL, failed[0]


def baseline_failure(task: RevisionTask, sandbox: SandboxSpec | None = None) -> str | None:
    """Return why the task's starting app does not start (None when it does, or when there is no app).

    The result is cached per task, start directory and sandbox spec.
    """
    if task.app is None:
        return None
    spec = sandbox or SandboxSpec()
    key = (task.id, str(task.start_dir), json.dumps(spec.model_dump(mode="json"), sort_keys=True, default=str))
    if key not in _baseline_cache:
        box = spec.make(language=task.language, hide=hidden_paths(task, task.golden_dir))
        try:
            box.start()
            box.copy_in(task.start_dir)
            with running_app(box, task.app):
                _baseline_cache[key] = None
        except AppStartError as exc:
            _baseline_cache[key] = f"the starting app does not start: {exc}"
        finally:
            box.close()
    return _baseline_cache[key]


def _run_check(criterion: Criterion, ctx: CheckContext) -> CheckOutcome:
    check = criterion.check
    try:
        if check.type == "judge":
            return run_judge_check(check, ctx, criterion.text)
        return _RUNNERS[check.type](check, ctx)
    except (OSError, shutil.Error, RecursionError, SandboxPathError) as exc:  # what the agent's files can cause
        return CheckOutcome(error=f"the check could not run on this workspace: {type(exc).__name__}: {exc}")


def _grade_one(criterion: Criterion, ctx: CheckContext) -> CriterionResult:
    started = time.perf_counter()
    shutil.rmtree(ctx.evidence, ignore_errors=True)  # never let an earlier run's evidence stand for this one
    ctx.evidence.mkdir(parents=True)
    outcome = _run_check(criterion, ctx)
    verdict, reason = verdict_of(outcome, getattr(criterion.check, "partial", True))
    valid = True
    if criterion.category in EVIDENCE_CATEGORIES:
        made = set(outcome.evidence)
        missing = [name for name in _REQUIRED_EVIDENCE if name not in made or not (ctx.evidence / name).is_file()]
        if missing:
            valid, verdict = False, Verdict.FAIL
            reason = f"invalid verdict: no {' or '.join(missing)} ({reason})"
    return CriterionResult(
        id=criterion.id,
        category=criterion.category.value,
        verdict=verdict,
        reason=reason,
        assertions=tuple(outcome.assertions),
        evidence=tuple(f"{criterion.id}/{name}" for name in dict.fromkeys(outcome.evidence)),
        valid=valid,
        graded=outcome.graded,
        duration_s=time.perf_counter() - started,
    )


def grade(
    task: RevisionTask,
    workspace: Path,
    *,
    sandbox: SandboxSpec | str = "local",
    sandbox_options: dict[str, Any] | None = None,
    evidence_dir: Path | None = None,
    judge: Any = None,
    check_baseline: bool = True,
    criteria: tuple[str, ...] | None = None,
) -> RevisionReport:
    """Grade the final ``workspace`` of ``task``.

    Args:
        task: The revision task.
        workspace: Host path of the final workspace (not modified).
        sandbox: The sandbox spec (or backend name) of fresh copies (commands, the app).
        sandbox_options: Backend options laid over ``sandbox``.
        evidence_dir: Where evidence goes (kept); None writes it to a temporary directory removed afterwards.
        judge: A :class:`~icae_env.revision.llm_judge.Judge` for ``judge`` checks (None: those are ungraded).
        check_baseline: Whether to check that the starting app starts (an infrastructure failure otherwise).
        criteria: Only these criterion ids (all by default).

    Returns:
        The report; evidence paths are relative to ``report.evidence_dir``.
    """
    started = time.perf_counter()
    spec = SandboxSpec.of(sandbox, sandbox_options)
    temporary = evidence_dir is None
    root = temp_evidence_dir() if temporary else Path(evidence_dir)  # type: ignore[arg-type]
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-snapshot-"))
    browser = BrowserSession()
    try:
        snapshot = take_snapshot(Path(workspace), scratch / "workspace", skip=(APP_DIR,))
        infra = baseline_failure(task, spec) if check_baseline else None
        results = []
        for criterion in task.criteria:
            if criteria is not None and criterion.id not in criteria:
                continue
            ctx = CheckContext(task, snapshot.root, root / criterion.id, spec, browser, judge)
            results.append(_grade_one(criterion, ctx))
    finally:
        browser.close()
        shutil.rmtree(scratch, ignore_errors=True)
        if temporary:
            shutil.rmtree(root, ignore_errors=True)
    return RevisionReport(
        task_id=task.id,
        criteria=tuple(results),
        infra_failure=infra,
        workspace_notes=tuple(snapshot.notes),
        evidence_dir="" if temporary else str(root),
        duration_s=time.perf_counter() - started,
    )
