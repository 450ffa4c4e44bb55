"""The built-in suite: shape checks on every task, and (slow) golden 100% / empty 0% through the scorer."""

import re
import tempfile

import pytest

from icae_env.scoring import score
from icae_env.tasks import BUILTIN_DIR, list_tasks, load_task

TASKS = list_tasks()


def test_suite_size_and_languages():
    assert len(TASKS) >= 8
    languages = {load_task(name).language for name in TASKS}
    assert "python" in languages and "javascript" in languages
    assert sum(load_task(n).language == "javascript" for n in TASKS) >= 2


@pytest.fixture(params=TASKS, scope="module")
def task(request):
    return load_task(request.param)


def test_levels_and_prds(task):
    assert sorted(task.levels) == ["L1", "L2", "L3", "ground"]
    words = len(re.findall(r"\b\w[\w'-]*\b", (BUILTIN_DIR / task.id / "prd" / "L1.md").read_text()))
    assert 150 <= words <= 250, f"L1 has {words} words"
    assert len(task.prd("ground")) > len(task.prd("L1"))


def test_hidden_records(task):
    l1 = [r for r in task.level("L1").hidden_constraints if r.is_task_specific]
    l2 = [r for r in task.level("L2").hidden_constraints if r.is_task_specific]
    l3 = task.level("L3").hidden_constraints
    assert len(l1) >= 5, "L1 must hide API, edge-case and architecture facts"
    assert {r.constraint_id for r in l2} < {r.constraint_id for r in l1}, "L2 restores some L1 facts"
    assert 1 <= len(l3) <= 3
    kinds = {r.kind.value for r in l1}
    assert {"api", "edge"} <= kinds, kinds
    assert all(r.oracle_response.strip() for r in l1 + list(l3))
    assert task.level("L1").context_pointers, "L1 should use vague phrases resolved by context pointers"
    assert task.level("L1").golden_api_signature


def test_case_counts_per_feature(task):
    public = {f.stem: len(f.cases) for f in task.tests.public}
    native = {f.stem: len(f.cases) for f in task.tests.native}
    enhanced = {f.stem: len(f.cases) for f in task.tests.enhanced}
    assert set(public) == set(native) == set(enhanced) and len(public) >= 4
    assert all(1 <= n <= 2 for n in public.values()), public
    assert all(n >= 5 for n in native.values()), native
    assert all(n >= 3 for n in enhanced.values()), enhanced


def test_golden_is_a_repo_without_cases(task):
    golden = task.golden_dir
    assert golden is not None and (golden / "rcb_tests" / "test.sh").is_file()
    leftovers = [p for p in (golden / "rcb_tests").rglob("*") if p.suffix in (".json", ".txt")]
    assert leftovers == []


@pytest.mark.slow
def test_golden_full_and_empty_zero(task):
    golden = score(task, task.golden_dir, structure=False)
    assert {t: (r.passed, r.total) for t, r in golden.tiers.items()} == {
        t: (task.tests.case_count(t), task.tests.case_count(t)) for t in ("public", "native", "enhanced")
    }
    with tempfile.TemporaryDirectory() as empty:
        assert score(task, empty, structure=False).overall == 0.0
