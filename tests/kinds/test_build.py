"""The ``build`` kind: ICAE-Bench imports get ICAE's time limits and are told ICAE's delivery protocol."""

from __future__ import annotations

from pathlib import Path

import pytest
from packs import TEST_SH, case_file, write_pack, write_repo

import icae_env
from icae_env.icae_bench.export import export_icae
from icae_env.icae_bench.load import ICAE_LIMITS, load_icae_bench
from icae_env.kinds.build import BuildKind
from icae_env.scoring import score
from icae_env.tasks import load_task

PROTOCOL = (
    "bash rcb_tests/test.sh --cases-dir <dir>",
    "rcb_tests/stdout/<dir>/<stem>@<i>.txt",
    "public_test_cases (Public)",
    "test_cases",
    "enhanced_test_cases",
)


def _imported(mini_pack: Path, tmp_path: Path):
    root = export_icae(load_task(mini_pack), tmp_path / "icae", alias="realcode@001")
    return load_icae_bench(root, "realcode@001", level="L1")


def test_imports_carry_icae_limits_and_builtin_tasks_keep_theirs(mini_pack, tmp_path):
    task = _imported(mini_pack, tmp_path)
    assert (task.case_timeout_s, task.tier_timeout_s, task.first_output_s) == tuple(ICAE_LIMITS.values())
    builtin = load_task("builtin/unidiff")
    assert (builtin.tier_timeout_s, builtin.first_output_s) == (600.0, 30.0)


def test_an_imported_task_states_the_delivery_protocol(mini_pack, tmp_path):
    task = _imported(mini_pack, tmp_path)
    env = icae_env.make("icae/ProjectBuild-v0", task=task)
    try:
        obs, _ = env.reset(seed=0)
        assert all(part in obs["output"] for part in PROTOCOL), obs["output"]
        assert "ask the user for them" in obs["output"]
    finally:
        env.close()
    assert "the PRD shows them" in BuildKind().intro(task, "L3", 16)


@pytest.mark.slow
def test_a_slow_build_scores_on_an_import_with_default_limits(mini_pack, tmp_path):
    task = _imported(mini_pack, tmp_path)
    slow = TEST_SH.replace("set -u\n", "set -u\nsleep 45  # a build that takes longer than a built-in task allows\n")
    repo = write_repo(tmp_path / "repo", test_sh=slow)
    report = score(task, repo, tiers=["native", "enhanced"])
    assert report.overall == 1.0 and report.hidden_total == 5


def test_a_builtin_hang_is_still_cut_in_seconds(tmp_path):
    cases = [({"text": "a"}, "A\n"), ({"text": "b", "hang": 1}, "B\n"), ({"text": "c"}, "C\n")]
    task = load_task(write_pack(tmp_path, tiers={"native": {"f": case_file(cases)}}))
    tier = score(task, task.golden_dir, tiers=["native"]).tiers["native"]  # the pack's own (fast) limits
    assert [c.passed for c in tier.cases] == [True, False, True] and tier.cases[1].reason == "timeout"
    assert tier.duration_s < task.case_timeout_s * 3 + task.first_output_s + 15
