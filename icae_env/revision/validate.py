"""Check a revision task against its golden revision, its unmodified start and an empty workspace.

Rules: the golden revision scores Strict 1.0; the unmodified start (with the request's attachments, as the agent
receives it) is not a Full-pass but passes every
preservation criterion; an empty workspace (the agent deleted the app) fails every preservation criterion.

Run: ``icae-env revision validate [NAME|PATH ...] [--sandbox docker]`` (all built-in ones by default).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from icae_env.revision.grading import grade
from icae_env.revision.models import Category, RevisionTask, Verdict
from icae_env.revision.pack import starting_workspace
from icae_env.revision.report import RevisionReport
from icae_env.sandbox.spec import SandboxSpec

__all__ = ["TaskValidation", "validate_revision_task", "format_validation"]


@dataclass
class TaskValidation:
    """The three reports of one task and the rules they break (empty: valid)."""

    task: RevisionTask
    golden: RevisionReport | None
    start: RevisionReport
    empty: RevisionReport
    problems: list[str]


def _preservation(report: RevisionReport) -> dict[str, Verdict]:
    return {c.id: c.verdict for c in report.criteria if c.category == Category.PRESERVATION.value}


def validate_revision_task(task: RevisionTask, sandbox: SandboxSpec | str = "local") -> TaskValidation:
    """Grade golden, start and empty workspaces of ``task`` (in sandboxes of ``sandbox``); list the rules broken."""
    problems: list[str] = []
    sandbox = SandboxSpec.of(sandbox)
    golden = grade(task, task.golden_dir, sandbox=sandbox) if task.golden_dir else None
    with tempfile.TemporaryDirectory(prefix="icae-validate-") as scratch:
        start = grade(task, starting_workspace(task, Path(scratch) / "start"), sandbox=sandbox)
        (Path(scratch) / "empty").mkdir()
        empty = grade(task, Path(scratch) / "empty", sandbox=sandbox, check_baseline=False)
    if start.infra_failure:
        problems.append(start.infra_failure)
    if golden is None:
        problems.append("no golden revision (golden/)")
    elif golden.strict != 1.0:
        failing = [f"{c.id}: {c.reason}" for c in golden.criteria if c.verdict is not Verdict.PASS]
        problems.append(f"golden Strict {golden.strict:.2f} < 1.0: {failing}")
    if start.full_pass:
        problems.append("the unmodified start is already a Full-pass")
    kept = [cid for cid, v in _preservation(start).items() if v is not Verdict.PASS]
    if kept:
        problems.append(f"the start fails preservation criteria {kept}")
    if not _preservation(start):
        problems.append("no preservation criteria")
    survived = [cid for cid, v in _preservation(empty).items() if v is not Verdict.FAIL]
    if survived:
        problems.append(f"an empty workspace does not fail preservation criteria {survived}")
    return TaskValidation(task, golden, start, empty, problems)


def format_validation(result: TaskValidation) -> str:
    """Return a table of verdicts (golden / start / empty per criterion) and the problems."""
    reports = {"golden": result.golden, "start": result.start, "empty": result.empty}
    lines = [f"{result.task.id}", f"  {'criterion':<10} {'category':<13} {'golden':<8} {'start':<8} {'empty':<8}"]
    for criterion in result.task.criteria:
        cells = []
        for report in reports.values():
            verdicts = report.verdicts() if report else {}
            cells.append(f"{verdicts.get(criterion.id, '-'):<8}")
        lines.append(f"  {criterion.id:<10} {criterion.category.value:<13} {' '.join(cells)}")
    for name, report in reports.items():
        if report is not None:
            scores = report.scores()
            lines.append(
                f"  {name}: strict {scores['strict']:.2f} graded {scores['graded']:.2f} "
                f"full-pass {int(scores['full_pass'])} ({report.duration_s:.1f} s)"
            )
    lines += [f"  PROBLEM: {p}" for p in result.problems] or ["  ok"]
    return "\n".join(lines)
