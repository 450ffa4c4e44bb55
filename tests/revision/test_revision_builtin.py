"""Every built-in revision task: golden Strict 1.0, the start keeps preservation but is no Full-pass, a deleted app
fails preservation, and every visual or interaction verdict leaves a screenshot and an action log."""

from __future__ import annotations

from pathlib import Path

import pytest

from icae_env.revision import Category, grade, list_revision_tasks, load_revision_task
from icae_env.revision.models import EVIDENCE_CATEGORIES
from icae_env.revision.validate import validate_revision_task

TASKS = list_revision_tasks()


def test_the_suite_has_four_tasks_two_with_a_browser() -> None:
    tasks = [load_revision_task(name) for name in TASKS]
    assert len(tasks) >= 4
    assert sum(any(c.check.type == "browser" for c in t.criteria) for t in tasks) >= 2
    for task in tasks:
        assert len(task.criteria) >= 6, task.id
        assert any(c.category is Category.PRESERVATION for c in task.criteria), task.id


@pytest.mark.parametrize("name", TASKS)
def test_golden_start_and_deleted_app(name: str) -> None:
    result = validate_revision_task(load_revision_task(name))
    assert not result.problems, result.problems
    assert result.golden is not None and result.golden.strict == 1.0
    assert result.start.full_pass is False and result.start.infra_failure is None
    assert result.empty.strict < 1.0


@pytest.mark.parametrize(
    "name", [n for n in TASKS if any(c.category in EVIDENCE_CATEGORIES for c in load_revision_task(n).criteria)]
)
def test_visual_and_interaction_verdicts_have_screenshot_and_action_log(name: str, tmp_path: Path) -> None:
    task = load_revision_task(name)
    report = grade(task, task.golden_dir, evidence_dir=tmp_path)
    visual = [c for c in report.criteria if c.category in {k.value for k in EVIDENCE_CATEGORIES}]
    assert visual
    for result in visual:
        assert result.valid and result.verdict.value == "PASS", result
        files = {Path(e).name: tmp_path / e for e in result.evidence}
        assert files["screenshot.png"].read_bytes()[:4] == b"\x89PNG"
        log = files["actions.log"].read_text()
        assert log.startswith("[ok] goto ") and "[failed]" not in log
