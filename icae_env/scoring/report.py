"""Frozen result models of the scorer."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["FailureReason", "CaseResult", "FailureSample", "TierResult", "StructureReport", "ScoreReport"]

FailureReason = Literal["no_test_sh", "build_error", "runtime_error", "missing_output", "output_mismatch", "timeout"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CaseResult(_Frozen):
    """Verdict on one case: ``stem``/``index`` locate it in its tier."""

    stem: str
    index: int
    passed: bool
    reason: FailureReason | None = None


class FailureSample(_Frozen):
    """The first failing case of a tier, for a human to read."""

    stem: str
    index: int
    reason: FailureReason
    input: str
    expected: str
    actual: str | None
    log_tail: str = ""


class TierResult(_Frozen):
    """One tier's outcome.

    Attributes:
        tier: ``public``, ``native`` or ``enhanced``.
        passed: Cases that passed.
        total: ``max(cases compared, authoritative case count)``.
        rate: ``passed / total`` (None when the tier has no case).
        failure_reason: Reason of the first failing case (None when all pass).
        reasons: Count of failing cases per reason.
        first_failure: A sample of the first failure.
        duration_s: Wall time of the tier, reruns included.
        stalled: Whether the tier run was killed (stall or tier time limit) and missing cases were rerun alone.
        isolated_reruns: How many cases were rerun alone.
        exit_code: Exit status of the tier's ``test.sh`` run (None when it did not run).
        cases: Per-case verdicts.
    """

    tier: str
    passed: int = 0
    total: int = 0
    rate: float | None = None
    failure_reason: FailureReason | None = None
    reasons: dict[str, int] = {}
    first_failure: FailureSample | None = None
    duration_s: float = 0.0
    stalled: bool = False
    isolated_reruns: int = 0
    exit_code: int | None = None
    cases: tuple[CaseResult, ...] = ()


class StructureReport(_Frozen):
    """Structural metrics of a workspace, and against the golden solution when it is available."""

    files: int
    loc: int
    classes: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    golden_files: int | None = None
    golden_loc: int | None = None
    file_ratio: float | None = None
    loc_ratio: float | None = None
    class_sim: float | None = None
    method_sim: float | None = None


class ScoreReport(_Frozen):
    """The scorer's full answer for one workspace.

    Attributes:
        task_id: The task scored.
        tiers: Results of the tiers that were run.
        overall: ICAE Overall = (Native + Enhanced passed) / (Native + Enhanced total); None without hidden cases.
        hidden_passed: Native + Enhanced passed.
        hidden_total: Native + Enhanced total.
        structure: Structural metrics (None when not requested).
        duration_s: Wall time of the whole scoring.
    """

    task_id: str
    tiers: dict[str, TierResult]
    overall: float | None
    hidden_passed: int
    hidden_total: int
    structure: StructureReport | None = None
    duration_s: float = 0.0

    def rate(self, tier: str) -> float | None:
        """Return the pass rate of ``tier`` (None when absent or empty)."""
        result = self.tiers.get(tier)
        return result.rate if result else None
