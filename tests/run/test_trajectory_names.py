"""Trajectory file names in a run directory."""

from __future__ import annotations

from icae_env.run.trajectory import trajectory_name


def test_generated_tasks_of_different_families_and_splits_get_different_trajectory_files():
    names = {trajectory_name(t, "L1", 0) for t in ("gen/a/train/0", "gen/a/test/0", "gen/b/train/0")}
    assert names == {"a-train-0-L1-0.jsonl", "a-test-0-L1-0.jsonl", "b-train-0-L1-0.jsonl"}
    assert trajectory_name("builtin/unidiff", "L1", 0) == "unidiff-L1-0.jsonl"
