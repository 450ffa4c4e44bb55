"""Revision tasks (Co-Design Bench style): revise a runnable app; hidden acceptance criteria judge the result.

Example:
    >>> from icae_env.revision import list_revision_tasks, load_revision_task
    >>> task = load_revision_task(list_revision_tasks()[0])
    >>> len(task.criteria) >= 6
    True
"""

from __future__ import annotations

from icae_env.revision.grading import grade
from icae_env.revision.models import Category, Criterion, RevisionTask, Verdict
from icae_env.revision.pack import list_revision_tasks, load_revision_pack, load_revision_task
from icae_env.revision.report import CriterionResult, RevisionReport, SuiteSummary, summarize

__all__ = [
    "Category",
    "Criterion",
    "CriterionResult",
    "RevisionReport",
    "RevisionTask",
    "SuiteSummary",
    "Verdict",
    "grade",
    "list_revision_tasks",
    "load_revision_pack",
    "load_revision_task",
    "summarize",
]
