"""Results of grading a revision: per-criterion verdicts with evidence, per-task scores, suite aggregates.

Scores follow the reference: **Strict** = share of criteria PASS, **Graded** = (PASS + 0.5 PARTIAL) / criteria,
**Full-pass** = every criterion PASS. Criteria left ungraded (a judge check with no judge configured) are out of
the denominators. Over a suite every task counts once (macro average), and tasks whose starting app does not
start (infrastructure failures) are reported apart.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from icae_env.revision.models import Verdict

__all__ = ["AssertionResult", "CriterionResult", "RevisionReport", "SuiteSummary", "summarize"]

_CREDIT = {Verdict.PASS: 1.0, Verdict.PARTIAL: 0.5, Verdict.FAIL: 0.0}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AssertionResult(_Frozen):
    """One assertion of a check: whether it held and what was seen."""

    passed: bool
    detail: str


class CriterionResult(_Frozen):
    """The verdict on one criterion.

    Attributes:
        id: Criterion id.
        category: Criterion category.
        verdict: PASS, PARTIAL or FAIL.
        reason: Why (the first failed assertion, an error, or "all assertions hold").
        assertions: Each assertion's outcome.
        evidence: Evidence files, relative to the report's ``evidence_dir``.
        valid: False when a required piece of evidence is missing (the verdict then counts as FAIL).
        graded: False when the criterion could not be graded (a judge check without a judge).
        duration_s: Seconds spent on the check.
    """

    id: str
    category: str
    verdict: Verdict
    reason: str
    assertions: tuple[AssertionResult, ...] = ()
    evidence: tuple[str, ...] = ()
    valid: bool = True
    graded: bool = True
    duration_s: float = Field(default=0.0, ge=0)


class RevisionReport(_Frozen):
    """Every verdict of one graded workspace and the task's scores.

    Attributes:
        task_id: The task.
        criteria: One result per criterion, in task order.
        infra_failure: Why the task's starting app does not start (None when it does, or was not checked).
        workspace_notes: What the grading snapshot left out of the workspace (special files, outward symlinks ...).
        evidence_dir: Where the evidence files are.
        duration_s: Seconds spent grading.
    """

    task_id: str
    criteria: tuple[CriterionResult, ...]
    infra_failure: str | None = None
    workspace_notes: tuple[str, ...] = ()
    evidence_dir: str = ""
    duration_s: float = 0.0

    @property
    def graded_criteria(self) -> tuple[CriterionResult, ...]:
        """The criteria that count (graded ones)."""
        return tuple(c for c in self.criteria if c.graded)

    def _share(self, credit: dict[Verdict, float]) -> float:
        counted = self.graded_criteria
        return sum(credit[c.verdict] for c in counted) / len(counted) if counted else 0.0

    @property
    def strict(self) -> float:
        """Share of graded criteria PASS."""
        return self._share({Verdict.PASS: 1.0, Verdict.PARTIAL: 0.0, Verdict.FAIL: 0.0})

    @property
    def graded(self) -> float:
        """PASS counts 1, PARTIAL 0.5, over graded criteria."""
        return self._share(_CREDIT)

    @property
    def full_pass(self) -> bool:
        """Whether every graded criterion is PASS (and there is at least one)."""
        counted = self.graded_criteria
        return bool(counted) and all(c.verdict is Verdict.PASS for c in counted)

    def verdicts(self) -> dict[str, str]:
        """Return criterion id -> verdict value."""
        return {c.id: c.verdict.value for c in self.criteria}

    def scores(self) -> dict[str, float]:
        """Return ``strict``, ``graded`` and ``full_pass`` (0/1) as floats."""
        return {"strict": self.strict, "graded": self.graded, "full_pass": float(self.full_pass)}


class SuiteSummary(_Frozen):
    """Macro averages over tasks (each task counts once), infrastructure failures apart.

    Attributes:
        tasks: Tasks graded.
        infra_failures: Task ids whose starting app did not start (left out of the averages).
        strict: Mean Strict completion.
        graded: Mean Graded completion.
        full_pass: Share of tasks with every criterion PASS.
        criterion_pass_rate: Share of all criteria PASS over the counted tasks (criterion coverage).
    """

    tasks: int
    infra_failures: tuple[str, ...]
    strict: float
    graded: float
    full_pass: float
    criterion_pass_rate: float


def summarize(reports: Sequence[RevisionReport]) -> SuiteSummary:
    """Aggregate task reports (see :class:`SuiteSummary`)."""
    counted = [r for r in reports if r.infra_failure is None]
    n = len(counted)
    criteria = [c for r in counted for c in r.graded_criteria]
    return SuiteSummary(
        tasks=len(reports),
        infra_failures=tuple(r.task_id for r in reports if r.infra_failure is not None),
        strict=sum(r.strict for r in counted) / n if n else 0.0,
        graded=sum(r.graded for r in counted) / n if n else 0.0,
        full_pass=sum(r.full_pass for r in counted) / n if n else 0.0,
        criterion_pass_rate=sum(c.verdict is Verdict.PASS for c in criteria) / len(criteria) if criteria else 0.0,
    )
