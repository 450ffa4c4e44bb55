"""The black-box scorer: replay a workspace's ``rcb_tests/test.sh`` on each tier in a fresh sandbox."""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icae_env.errors import ArgumentError
from icae_env.sandbox.base import Sandbox
from icae_env.sandbox.spec import SandboxSpec
from icae_env.scoring.compare import compare_case_file, decode_output
from icae_env.scoring.harness import HarnessRun, inject_cases, run_harness
from icae_env.scoring.report import CaseResult, FailureReason, FailureSample, ScoreReport, TierResult
from icae_env.scoring.structure import measure_structure
from icae_env.tasks.models import TIER_DIRS, TIERS, CaseFile, Task
from icae_env.tasks.privileged import hidden_paths

__all__ = ["ScoreLimits", "score", "RUNTIME_MARKERS"]

RUNTIME_MARKERS = (
    "Traceback (most recent call last)",
    "command not found",
    "npm ERR",
    "Cannot find module",
    "SyntaxError",
    "panicked at",
    "Exception in thread",
    "Segmentation fault",
    "No such file or directory",
    "Error:",
)
_SAMPLE_CHARS = 600


@dataclass(frozen=True)
class ScoreLimits:
    """Time limits of one scoring run.

    Attributes:
        case_s: Kill the harness when no new output file appeared for this long; also the limit of a case
            rerun alone (default: the task's ``case_timeout_s``).
        first_output_s: Extra time before the first output file, room for a build step (default: the task's
            ``first_output_s``).
        tier_s: Hard limit for one tier, reruns included (default: the task's ``tier_timeout_s``).
    """

    case_s: float | None = None
    first_output_s: float | None = None
    tier_s: float | None = None


def _sample(case_file: CaseFile, index: int, reason: FailureReason, actual: str | None, log: str) -> FailureSample:
    case = case_file.cases[index]
    return FailureSample(
        stem=case_file.stem,
        index=index,
        reason=reason,
        input=json.dumps(case.input, ensure_ascii=False)[:_SAMPLE_CHARS],
        expected=case.expected_text[:_SAMPLE_CHARS],
        actual=None if actual is None else actual[:_SAMPLE_CHARS],
        log_tail=log[-_SAMPLE_CHARS:],
    )


def _classify(actual: str | None, run: HarnessRun, rerun_timed_out: bool) -> FailureReason:
    crashed = any(marker in run.log_tail for marker in RUNTIME_MARKERS)
    if actual is None:
        if rerun_timed_out:
            return "timeout"
        if not run.outputs and run.exit_code != 0:
            return "build_error"
        return "runtime_error" if crashed else "missing_output"
    return "runtime_error" if crashed and not actual else "output_mismatch"


class _TierScorer:
    """Scores one tier: a fresh sandbox, the harness run, then lone reruns of cases a stall left without output."""

    def __init__(self, task: Task, workspace: Path, tier: str, factory: Callable[[], Sandbox], limits: ScoreLimits):
        self.task, self.workspace, self.tier, self.factory = task, workspace, tier, factory
        self.files = task.tests.tier(tier)  # type: ignore[arg-type]
        self.sub = TIER_DIRS[tier]  # type: ignore[index]
        self.case_s = limits.case_s or task.case_timeout_s
        self.first_s = task.first_output_s if limits.first_output_s is None else limits.first_output_s
        self.tier_s = limits.tier_s or task.tier_timeout_s

    def run(self) -> TierResult:
        started = time.monotonic()
        total = sum(len(f.cases) for f in self.files)
        if not (self.workspace / "rcb_tests" / "test.sh").is_file():
            cases = tuple(
                CaseResult(stem=f.stem, index=i, passed=False, reason="no_test_sh")
                for f in self.files
                for i in range(len(f.cases))
            )
            first = _sample(self.files[0], 0, "no_test_sh", None, "") if cases else None
            return self._result(cases, first, started, None, HarnessRun(-1, False, "", {}, 0.0), 0)
        box = self.factory()
        try:
            box.start()
            box.copy_in(self.workspace)
            with tempfile.TemporaryDirectory(prefix="icae-score-") as scratch:
                return self._score_in(box, Path(scratch), started, total)
        finally:
            box.close()

    def _score_in(self, box: Sandbox, scratch: Path, started: float, total: int) -> TierResult:
        inject_cases(box, self.sub, self.files)
        run = run_harness(
            box,
            self.sub,
            time_limit=self.tier_s,
            stall_s=self.case_s,
            first_output_s=self.case_s + self.first_s,
            scratch=scratch,
        )
        verdicts = {f.stem: compare_case_file(f, run.outputs.get(f.stem)) for f in self.files}
        lone: dict[tuple[str, int], tuple[bool, str | None, bool]] = {}
        if run.stalled:
            lone = self._rerun_missing(box, scratch, verdicts, started)
        cases, first = [], None
        for case_file in self.files:
            for i, (passed, actual) in enumerate(verdicts[case_file.stem]):
                timed_out = False
                if (case_file.stem, i) in lone:
                    passed, actual, timed_out = lone[(case_file.stem, i)]
                reason = None if passed else _classify(actual, run, timed_out or (run.stalled and actual is None))
                cases.append(CaseResult(stem=case_file.stem, index=i, passed=passed, reason=reason))
                if reason and first is None:
                    first = _sample(case_file, i, reason, actual, run.log_tail)
        return self._result(tuple(cases), first, started, run.exit_code, run, len(lone))

    def _rerun_missing(self, box: Sandbox, scratch: Path, verdicts: dict[str, Any], started: float) -> dict:
        results: dict[tuple[str, int], tuple[bool, str | None, bool]] = {}
        for case_file in self.files:
            for i, (_, actual) in enumerate(verdicts[case_file.stem]):
                if actual is not None:
                    continue
                left = self.tier_s - (time.monotonic() - started)
                if left <= 1:
                    results[(case_file.stem, i)] = (False, None, True)
                    continue
                results[(case_file.stem, i)] = self._rerun_one(box, scratch, case_file, i, left)
        return results

    def _rerun_one(self, box: Sandbox, scratch: Path, case_file: CaseFile, i: int, left: float) -> tuple:
        single = CaseFile(stem=case_file.stem, description=case_file.description, cases=(case_file.cases[i],))
        inject_cases(box, self.sub, [single])
        limit = min(left, self.case_s + self.first_s)
        run = run_harness(
            box,
            self.sub,
            time_limit=limit,
            stall_s=self.case_s,
            first_output_s=self.case_s + self.first_s,
            scratch=scratch / f"rerun-{case_file.stem}-{i}",
        )
        files = run.outputs.get(case_file.stem) or {}
        if not files:
            return False, None, run.stalled
        actual = decode_output(files[min(files)])
        return actual == single.cases[0].expected_text, actual, False

    def _result(
        self,
        cases: tuple[CaseResult, ...],
        first: FailureSample | None,
        started: float,
        exit_code: int | None,
        run: HarnessRun,
        reruns: int,
    ) -> TierResult:
        passed = sum(c.passed for c in cases)
        total = max(len(cases), sum(len(f.cases) for f in self.files))
        reasons = Counter(str(c.reason) for c in cases if c.reason)
        return TierResult(
            tier=self.tier,
            passed=passed,
            total=total,
            rate=(passed / total) if total else None,
            failure_reason=first.reason if first else None,
            reasons=dict(reasons),
            first_failure=first,
            duration_s=time.monotonic() - started,
            stalled=run.stalled,
            isolated_reruns=reruns,
            exit_code=exit_code,
            cases=cases,
        )


def score(
    task: Task,
    workspace_dir: str | Path,
    tiers: Iterable[str] = TIERS,
    *,
    sandbox: SandboxSpec | str = "local",
    sandbox_options: dict[str, Any] | None = None,
    limits: ScoreLimits | None = None,
    structure: bool = True,
) -> ScoreReport:
    """Score a delivered repository against a task's test tiers, exactly as ICAE-Bench does.

    Each tier runs in a fresh sandbox holding a copy of the workspace, with ``rcb_tests/<tier dir>/`` replaced
    by the authoritative cases stripped of ``expected_output``. Hidden cases exist only in that sandbox.

    Args:
        task: The task.
        workspace_dir: Host directory of the delivered repository.
        tiers: Tiers to run (default all three); tiers the task lacks are skipped.
        sandbox: The sandbox spec (or backend name) of the fresh sandboxes.
        sandbox_options: Backend options laid over ``sandbox``.
        limits: Time limits (defaults from the task).
        structure: Whether to compute structural metrics.

    Returns:
        The :class:`ScoreReport`; ``overall`` is (Native + Enhanced passed) / (Native + Enhanced total).

    Raises:
        ArgumentError: for an unknown tier name (a ``ValueError``).
        FileNotFoundError: when ``workspace_dir`` is not a directory.
    """
    started = time.monotonic()
    workspace = Path(workspace_dir)
    if not workspace.is_dir():
        raise FileNotFoundError(f"workspace_dir {str(workspace)!r} is not a directory")
    wanted = list(tiers)
    unknown = [t for t in wanted if t not in TIERS]
    if unknown:
        raise ArgumentError(f"unknown tiers {unknown}; expected a subset of {list(TIERS)}")
    spec = SandboxSpec.of(sandbox, sandbox_options)
    hide = hidden_paths(task, task.golden_dir)  # the delivery must not read the answers either
    limits = limits or ScoreLimits()
    results = {
        tier: _TierScorer(task, workspace, tier, lambda: spec.make(language=task.language, hide=hide), limits).run()
        for tier in wanted
        if task.tests.tier(tier)  # type: ignore[arg-type]
    }
    hidden = [results[t] for t in ("native", "enhanced") if t in results]
    passed, total = sum(r.passed for r in hidden), sum(r.total for r in hidden)
    return ScoreReport(
        task_id=task.id,
        tiers=results,
        overall=(passed / total) if total else None,
        hidden_passed=passed,
        hidden_total=total,
        structure=measure_structure(workspace, task.golden_dir, task.language, task.meta) if structure else None,
        duration_s=time.monotonic() - started,
    )
