"""Three bugs that sat on the seams between envs, wrappers and the run layer (issue 14), each reproduced.

These tests use only names that exist before and after the redesign (``icae_env.make``, ``icae_env.wrappers``,
the ``icae-env replay`` command), so that each one can be shown to fail on the commit it was found on.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from packs import ADAPTER, TEST_SH

import icae_env
from icae_env.revision import load_revision_task
from icae_env.sandbox.local import bwrap_available
from icae_env.wrappers import RecordEpisode, ShapedReward

LOCAL = {"sandbox_options": {"isolation": "bwrap"}} if bwrap_available() else {}


def _replay(path: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "icae_env.cli", "replay", str(path)]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def test_a_recorded_revision_episode_holds_no_criterion_and_replays(tmp_path: Path) -> None:
    task = load_revision_task("revision/todo-filter")  # a task object, as a training loop passes it
    env = RecordEpisode(icae_env.make("icae/Revision-v0", task=task, **LOCAL), tmp_path)
    try:
        env.reset(seed=0)
        env.step({"tool": "bash", "command": "ls"})
        env.step({"tool": "view", "path": "index.html", "range": [1, 3]})
        *_, info = env.step({"tool": "submit"})
    finally:
        env.close()
    assert info["score"]["criteria"], "the episode was graded"
    text = env.paths[0].read_text(encoding="utf-8")
    leaked = [c.id for c in task.criteria if c.text in text]
    assert leaked == [], f"criterion text in the trajectory: {leaked}"
    result = _replay(env.paths[0])
    assert result.returncode == 0 and "3 steps: identical" in result.stdout, result.stdout + result.stderr


def test_shaping_scores_a_snapshot_so_a_fifo_is_no_exception(mini_pack: Path) -> None:
    env = ShapedReward(icae_env.make("icae/ProjectBuild-v0", task=str(mini_pack), **LOCAL), public=0.5)
    try:
        env.reset(seed=0)
        env.step({"tool": "bash", "command": "mkfifo pipe && ls -l pipe"})  # an agent mistake, not an error
        env.step({"tool": "write_file", "path": "adapter.py", "content": ADAPTER})
        env.step({"tool": "write_file", "path": "rcb_tests/test.sh", "content": TEST_SH})
        *_, info = env.step({"tool": "bash", "command": "bash rcb_tests/test.sh"})
        assert info["action_error"] is None and info["shaping"]["public"] == 0.5  # Public went 0 -> 1
        *_, terminated, _, info = env.step({"tool": "submit"})
        assert terminated and info["score"]["overall"] == 1.0
    finally:
        env.close()


@pytest.mark.parametrize("env_id", ["icae/Revision-v0", "icae/ProjectBuild-v0", "icae/Clarify-v0"])
def test_shaping_wraps_every_registered_env(env_id: str) -> None:
    env = ShapedReward(icae_env.make(env_id))
    try:
        _, info = env.reset(seed=0)
        assert info["level"] == "L1"
        action = "what is the weather like today" if env_id == "icae/Clarify-v0" else {"tool": "ask", "question": "x"}
        *_, info = env.step(action)
        assert set(info["shaping"]) == {"env", "constraint", "public", "fallback", "total"}
    finally:
        env.close()
