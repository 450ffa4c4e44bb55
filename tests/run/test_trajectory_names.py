"""Trajectory file names in a run directory."""

from __future__ import annotations

from icae_env.run.trajectory import trajectory_name


def test_generated_tasks_of_different_families_and_splits_get_different_trajectory_files():
    names = {trajectory_name(t, "L1", 0) for t in ("gen/a/train/0", "gen/a/test/0", "gen/b/train/0")}
    assert names == {"a-train-0-L1-0.jsonl", "a-test-0-L1-0.jsonl", "b-train-0-L1-0.jsonl"}
    assert trajectory_name("builtin/unidiff", "L1", 0) == "unidiff-L1-0.jsonl"


def test_progress_labels_name_generated_tasks_in_full():
    from icae_env.run.records import EpisodeJob

    assert EpisodeJob(index=0, task="gen/a/test/3", level="L2", seed=1).label == "a-test-3 L2 seed 1"
    assert EpisodeJob(index=0, task="builtin/unidiff", level="L1", seed=0).label == "unidiff L1 seed 0"
