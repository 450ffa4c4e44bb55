"""The scorer end to end on small packs: failure reasons, limits, isolation of hidden cases."""

import pytest
from packs import TEST_SH, case_file, write_pack, write_repo

from icae_env.scoring import ScoreLimits, score
from icae_env.tasks import load_task

FAST = ScoreLimits(case_s=1.0, first_output_s=1.0, tier_s=30)


def test_golden_scores_full_and_empty_scores_zero(mini_task, tmp_path):
    report = score(mini_task, mini_task.golden_dir)
    assert {t: r.rate for t, r in report.tiers.items()} == {"public": 1.0, "native": 1.0, "enhanced": 1.0}
    assert (report.overall, report.hidden_passed, report.hidden_total) == (1.0, 5, 5)
    empty = score(mini_task, tmp_path)
    assert empty.overall == 0.0
    assert {r.failure_reason for r in empty.tiers.values()} == {"no_test_sh"}
    assert empty.tiers["native"].first_failure.expected == "B\n"


def test_overall_aggregates_cases_not_tiers(tmp_path):
    tiers = {
        "native": {"f": case_file([({"text": t}, t.upper() + "\n") for t in "abc"])},
        "enhanced": {"f": case_file([({"text": "z"}, "WRONG\n")])},
    }
    task = load_task(write_pack(tmp_path, tiers=tiers))
    report = score(task, task.golden_dir, tiers=["native", "enhanced"])
    assert report.overall == pytest.approx(3 / 4)
    assert report.tiers["enhanced"].failure_reason == "output_mismatch"
    assert report.tiers["enhanced"].first_failure.actual == "Z\n"


def test_hanging_case_loses_only_itself(tmp_path):
    cases = [({"text": "a"}, "A\n"), ({"text": "b", "hang": 1}, "B\n"), ({"text": "c"}, "C\n")]
    task = load_task(write_pack(tmp_path, tiers={"native": {"f": case_file(cases)}}))
    tier = score(task, task.golden_dir, limits=FAST).tiers["native"]
    assert [c.passed for c in tier.cases] == [True, False, True]
    assert tier.cases[1].reason == "timeout" and tier.stalled and tier.isolated_reruns == 2
    assert tier.duration_s < 15


def test_test_sh_that_never_writes_output(mini_task, tmp_path):
    repo = write_repo(tmp_path / "repo", test_sh="#!/bin/bash\necho running\nexit 0\n")
    tier = score(mini_task, repo, tiers=["native"]).tiers["native"]
    assert (tier.passed, tier.total, tier.failure_reason) == (0, 3, "missing_output")


def test_test_sh_that_hangs_without_output(mini_task, tmp_path):
    repo = write_repo(tmp_path / "repo", test_sh="#!/bin/bash\nsleep 1000\n")
    tier = score(mini_task, repo, tiers=["native"], limits=FAST).tiers["native"]
    assert tier.failure_reason == "timeout" and tier.passed == 0 and tier.duration_s < 20


def test_build_error_and_runtime_error(mini_task, tmp_path):
    broken = write_repo(tmp_path / "b", test_sh="#!/bin/bash\nmake_build_tool --release\n")
    tier = score(mini_task, broken, tiers=["public"]).tiers["public"]
    assert tier.failure_reason == "build_error" and "command not found" in tier.first_failure.log_tail
    crash_sh = TEST_SH.replace("capture_output=True", "stdout=subprocess.PIPE")
    crashing = write_repo(
        tmp_path / "c", adapter="raise SystemExit(__import__('json').load(open('nope')))", test_sh=crash_sh
    )
    tier = score(mini_task, crashing, tiers=["public"]).tiers["public"]
    assert tier.failure_reason == "runtime_error"


def test_stale_outputs_and_planted_cases_are_replaced(mini_task, tmp_path):
    repo = write_repo(tmp_path / "repo", adapter="print('nope')")
    stale = repo / "rcb_tests" / "stdout" / "test_cases"
    stale.mkdir(parents=True)
    for i, text in enumerate(["B\n", "CD\n", "E F\n"]):
        (stale / f"feature1_upper@{i}.txt").write_text(text)
    (repo / "rcb_tests" / "test_cases").mkdir()
    (repo / "rcb_tests" / "test_cases" / "planted.json").write_text('{"cases": []}')
    assert score(mini_task, repo, tiers=["native"]).tiers["native"].passed == 0


def test_hidden_cases_never_reach_the_workspace(mini_task, tmp_path):
    repo = write_repo(tmp_path / "repo")
    before = sorted(p.relative_to(repo) for p in repo.rglob("*"))
    score(mini_task, repo)
    assert sorted(p.relative_to(repo) for p in repo.rglob("*")) == before


def test_harness_sees_cases_without_expected_output(mini_task, tmp_path):
    spy = TEST_SH.replace(
        'mkdir -p "rcb_tests/stdout/$SUB"',
        'mkdir -p "rcb_tests/stdout/$SUB"; grep -rl expected_output rcb_tests/"$SUB" && exit 9',
    )
    repo = write_repo(tmp_path / "repo", test_sh=spy)
    report = score(mini_task, repo, tiers=["native"])
    assert report.tiers["native"].exit_code == 0 and report.tiers["native"].rate == 1.0


def test_public_only_task_has_no_overall(tmp_path):
    task = load_task(write_pack(tmp_path, tiers={"public": {"f": case_file([({"text": "a"}, "A\n")])}}))
    report = score(task, task.golden_dir)
    assert list(report.tiers) == ["public"] and report.overall is None and report.hidden_total == 0


def test_bad_arguments(mini_task, tmp_path):
    with pytest.raises(ValueError, match="unknown tiers"):
        score(mini_task, tmp_path, tiers=["secret"])
    with pytest.raises(FileNotFoundError, match="not a directory"):
        score(mini_task, tmp_path / "nope")
