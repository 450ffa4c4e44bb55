"""Gymnasium vector envs over every registered id: ``make_vec`` async with default settings equals sync.

Real envs in real worker processes (``AsyncVectorEnv``, shared memory on) with local sandboxes; the scripted
episode is scored by the real scorer.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

from icae_env.errors import ArgumentError, ArgumentTypeError
from icae_env.tasks import load_task
from icae_env.vector_spaces import SharedTexts, SpaceBatch

BUILD = "icae/ProjectBuild-v0"
MODES = ("sync", "async")
SLEEP = {"tool": "bash", "command": "sleep 1"}
STAMPED_SLEEP = {"tool": "bash", "command": "date +%s.%N; sleep 1; date +%s.%N"}  # when the sleep ran
SOURCE_ENV = 2
#: Values that are measurements (wall-clock seconds), not results; ``Timing`` already compares equal.
MEASURED = ("duration_s",)


def _make_vec(env_id: str, mode: str, **kwargs: Any) -> gymnasium.vector.VectorEnv:
    return gymnasium.make_vec(env_id, num_envs=2, vectorization_mode=mode, **kwargs)


def _run(env_id: str, mode: str, script: list[list[Any]], **kwargs: Any) -> list[tuple]:
    """Reset with seed 0, then step the batches of ``script``; return every result, copied."""
    envs = _make_vec(env_id, mode, **kwargs)
    try:
        results = [copy.deepcopy(envs.reset(seed=0))]
        results.extend(copy.deepcopy(envs.step(actions)) for actions in script)
    finally:
        envs.close()
    return results


def _unmeasured(data: Any) -> Any:
    """``data`` without the measured values (and their Gymnasium ``_key`` masks)."""
    if isinstance(data, dict):
        return {k: _unmeasured(v) for k, v in data.items() if k not in MEASURED and k.lstrip("_") not in MEASURED}
    if isinstance(data, np.ndarray) and data.dtype == object:  # the extra None keeps tuple members 1-D
        return np.array([_unmeasured(v) for v in data] + [None], dtype=object)[:-1]
    return data


def _assert_same_runs(runs: dict[str, list[tuple]]) -> None:
    for number, (synced, parallel) in enumerate(zip(runs["sync"], runs["async"], strict=True)):
        fields = (
            ("observation", "info") if number == 0 else ("observation", "reward", "terminated", "truncated", "info")
        )
        for field, a, b in zip(fields, synced, parallel, strict=True):
            assert data_equivalence(_unmeasured(a), _unmeasured(b), exact=True), f"step {number}: {field} differs"


def _golden(pack: Path, path: str) -> dict[str, str]:
    golden = load_task(pack).golden_dir
    assert golden is not None
    return {"tool": "write_file", "path": path, "content": (golden / path).read_text()}


# -- the must-show: two sleeps at once, and sync == async step for step ------------------------------------------


def test_async_with_default_settings_runs_two_sleeps_at_once():
    envs = _make_vec(BUILD, "async", task="builtin/unidiff")
    try:
        assert envs.shared_memory and isinstance(envs.observation_space["output"], SpaceBatch)
        envs.reset(seed=0)
        started = time.perf_counter()
        obs, rewards, terminated, truncated, infos = envs.step([STAMPED_SLEEP, STAMPED_SLEEP])
        elapsed = time.perf_counter() - started
        assert obs["exit_code"].tolist() == [0, 0] and not terminated.any() and not truncated.any()
        assert all(t.sandbox_s >= 1.0 for t in infos["timing"]), "each env slept one second"
    finally:
        envs.close()
    print(f"\n2 envs x bash 'sleep 1', one async step: {elapsed:.3f} s (benchmarks/vector_envs.py measures it)")
    (start_0, end_0), (start_1, end_1) = ([float(x) for x in out.split()] for out in obs["output"])
    assert max(start_0, start_1) < min(end_0, end_1), f"the two sleeps did not overlap: {obs['output']}"


def test_async_equals_sync_step_for_step_with_a_scored_submit_a_truncation_and_autoresets(mini_pack):
    script = [
        [
            {"tool": "ask", "question": "what is the output format?"},
            {"tool": "ask", "question": "é: how is text transformed?"},
        ],
        [_golden(mini_pack, "adapter.py"), {"tool": "write_file", "path": "notes/ü.txt", "content": "漢字 😀\n"}],
        [_golden(mini_pack, "rcb_tests/test.sh"), {"tool": "bash", "command": "cat notes/ü.txt"}],
        [
            {"tool": "bash", "command": 'echo \'{"text": "hé"}\' | python3 adapter.py'},
            '{"tool": "bash", "command": "true"}',
        ],
        [{"tool": "submit"}, {"tool": "view", "path": "."}],  # env 0 terminates: scored
        [
            {"tool": "bash", "command": "echo ignored"},
            {"tool": "bash", "command": "echo last"},
        ],  # env 0 autoresets; env 1 truncates
        [{"tool": "bash", "command": "printf 'ü%.0s' 1 2 3"}, {"tool": "view", "path": "."}],  # env 1 autoresets
        [{"tool": "bash", "command": "sleep 0"}, {"tool": "nope"}],  # an agent mistake in the batch
    ]
    runs = {mode: _run(BUILD, mode, script, task=str(mini_pack), max_steps=6) for mode in MODES}
    _assert_same_runs(runs)
    steps = runs["async"][1:]
    outputs = [obs["output"] for obs, *_ in steps]
    assert all(type(o) is tuple for o in outputs)
    assert outputs[2][1] == "漢字 😀\n" and outputs[3] == ("HÉ\n", "") and outputs[6][0] == "üüü"
    assert [r.tolist() for _, r, *_ in steps][4][0] > 0.99, "the golden delivery scores"
    assert [t.tolist() for *_, t, _, _ in steps] == [[False, False]] * 4 + [[True, False]] + [[False, False]] * 3
    assert [t.tolist() for *_, t, _ in steps] == [[False, False]] * 5 + [[False, True]] + [[False, False]] * 2
    assert steps[4][4]["score"]["tiers"]["public"]["rate"][0] == 1.0
    assert steps[5][4]["score"]["tiers"]["public"]["failure_reason"][1] == "no_test_sh", "a truncation is scored"
    assert (steps[5][0]["step"][0], steps[5][0]["source"][0], steps[5][1][0]) == (0, SOURCE_ENV, 0.0), "autoreset"
    assert (steps[6][0]["step"].tolist(), steps[6][0]["source"][1]) == ([1, 0], SOURCE_ENV)
    assert steps[7][4]["action_error"][0] is None and "unknown or missing tool" in steps[7][4]["action_error"][1]


CLARIFY_SCRIPT = [
    ["how are cycles reported?", {"tool": "ask", "question": "what is the input format?"}],
    ["", {"tool": "submit"}],
]


def test_clarify_steps_the_same_under_async():
    runs = {mode: _run("icae/Clarify-v0", mode, CLARIFY_SCRIPT, task="builtin/dep-resolver") for mode in MODES}
    _assert_same_runs(runs)
    (obs, info), first, last = runs["async"]
    assert obs["output"][0].startswith("## Product Requirement") and obs["questions_left"].tolist() == [16, 16]
    assert first[0]["source"].tolist() == [1, 1] and first[4]["recovered"][0] == ("C004",)
    assert last[2].tolist() == [True, True] and last[0]["output"] == ("Stopped asking.",) * 2


def test_workers_started_by_forkserver_know_the_text_spaces_too():
    """Python 3.14's default start method: the workers import icae_env (and its registrations) afresh."""
    runs = {
        "sync": _run("icae/Clarify-v0", "sync", CLARIFY_SCRIPT),
        "async": _run("icae/Clarify-v0", "async", CLARIFY_SCRIPT, vector_kwargs={"context": "forkserver"}),
    }
    _assert_same_runs(runs)
    assert runs["async"][-1][2].tolist() == [True, True]


def test_revision_steps_the_same_under_async():
    script = [[{"tool": "view", "path": "."}, {"tool": "bash", "command": "echo é; (exit 3)"}]]
    runs = {mode: _run("icae/Revision-v0", mode, script) for mode in MODES}
    _assert_same_runs(runs)
    (obs, info), (stepped, *_) = runs["async"]
    assert obs["output"][0] == obs["output"][1] and len(obs["output"][0]) > 0
    assert stepped["output"][1] == "é\n" and stepped["exit_code"].tolist() == [0, 3]


# -- what a trainer gets back ---------------------------------------------------------------------------------


def test_a_lone_action_or_a_short_batch_is_refused_in_both_modes(mini_pack):
    for mode in MODES:
        envs = _make_vec(BUILD, mode, task=str(mini_pack))
        try:
            envs.reset(seed=0)
            with pytest.raises(ArgumentTypeError, match="is a list or tuple of 2 items, one per env"):
                envs.step({"tool": "bash", "command": "true"})
            with pytest.raises(ArgumentError, match=r"holds one item per env \(2\); got 1"):
                envs.step(['{"tool": "bash", "command": "true"}'])
            obs, *_ = envs.step(['{"tool": "bash", "command": "echo ok"}'] * 2)
            assert obs["output"] == ("ok\n", "ok\n"), f"{mode}: a refused batch leaves the envs usable"
        finally:
            envs.close()


def test_without_copies_the_output_is_the_live_shared_view(mini_pack):
    envs = _make_vec(BUILD, "async", task=str(mini_pack), vector_kwargs={"copy": False})
    try:
        obs, _ = envs.reset(seed=0)
        assert isinstance(obs["output"], SharedTexts) and obs in envs.observation_space
        again, *_ = envs.step([{"tool": "bash", "command": "echo a"}, {"tool": "bash", "command": "echo 😀"}])
        assert again["output"] is obs["output"] and obs["output"] == ("a\n", "😀\n")
    finally:
        envs.close()
