"""``RecordEpisode``: a JSONL file per episode, in TrajectoryWriter's format, that trajectory.replay re-runs."""

from __future__ import annotations

import doctest
import json

import gymnasium
import pytest

import icae_env
import icae_env.wrappers.record_episode
from icae_env.run.trajectory import read_trajectory, replay
from icae_env.tasks import load_task
from icae_env.wrappers import INVALID_ACTION, RecordEpisode, ShapedReward, TextActions

CLARIFY = "icae/Clarify-v0"
TASK = "builtin/dep-resolver"


def test_each_episode_gets_a_replayable_file(tmp_path):
    env = RecordEpisode(gymnasium.make(CLARIFY, task=TASK, budget=3), tmp_path / "runs", name_prefix="clarify")
    env.reset(seed=4)
    for question in ("how are cycles reported", "what is the weather like today", ""):
        env.step(question)
    env.reset(seed=5, options={"level": "L2"})
    env.step("what is the api")
    env.close()
    assert [p.name for p in env.paths] == ["clarify-0.jsonl", "clarify-1.jsonl"]
    first = list(read_trajectory(env.paths[0]))
    assert [r["type"] for r in first] == ["reset", "step", "step", "step"]
    head = first[0]
    assert (head["env_id"], head["seed"], head["kwargs"]["budget"], head["kwargs"]["task"]) == (CLARIFY, 4, 3, TASK)
    assert first[1]["info"]["recovered"] == ["C004"] and first[-1]["terminated"] is True
    report = replay(env.paths[0])
    assert report.ok and report.steps == 3
    second = replay(env.paths[1])
    assert second.ok and second.steps == 1  # an unfinished episode replays as far as it went


def test_replay_notices_a_changed_recording(tmp_path):
    env = RecordEpisode(gymnasium.make(CLARIFY, task=TASK, budget=3), tmp_path)
    env.reset(seed=0)
    env.step("how are cycles reported")
    env.close()
    records = list(read_trajectory(env.paths[0]))
    records[1]["action"] = "what is the weather like today"
    env.paths[0].write_text("".join(json.dumps(r) + "\n" for r in records))
    assert {m["field"] for m in replay(env.paths[0]).mismatches} == {"output", "reward"}


def test_below_text_actions_it_records_what_the_env_took(tmp_path, mini_pack):
    env = TextActions(RecordEpisode(icae_env.make("icae/ProjectBuild-v0", task=str(mini_pack)), tmp_path))
    env.reset(seed=0)
    env.step('<write_file path="a.txt">\nhi\n</write_file>')
    env.step("```bash\ncat a.txt\n```")
    env.step("no idea")
    env.step('{"name": "submit", "arguments": {}}')
    env.close()
    actions = [r["action"] for r in read_trajectory(tmp_path / "episode-0.jsonl") if r["type"] == "step"]
    assert actions == [
        {"tool": "write_file", "path": "a.txt", "content": "hi\n"},
        {"tool": "bash", "command": "cat a.txt"},
        INVALID_ACTION,
        {"tool": "submit"},
    ]
    report = replay(tmp_path / "episode-0.jsonl")
    assert report.ok and report.steps == 4


def test_task_objects_are_recorded_by_id_and_lines_are_flushed(tmp_path):
    env = RecordEpisode(gymnasium.make(CLARIFY, task=load_task(TASK)), tmp_path)
    env.reset(seed=0)
    env.step("how are cycles reported")
    records = list(read_trajectory(env.paths[0]))  # readable before the episode ends or the env closes
    assert records[0]["kwargs"]["task"] == "dep-resolver" and len(records) == 2
    env.close()
    env.close()


def test_an_env_without_a_spec_is_recorded_but_cannot_be_replayed(tmp_path):
    from icae_env.envs.clarify import ClarifyEnv

    env = RecordEpisode(ClarifyEnv(task=TASK), tmp_path)
    env.reset(seed=0)
    env.close()
    assert next(read_trajectory(env.paths[0]))["env_id"] is None
    with pytest.raises(ValueError, match="no reset record with an env_id; cannot replay"):
        replay(env.paths[0])


def test_placement_and_arguments_are_checked(tmp_path):
    base = gymnasium.make(CLARIFY)
    with pytest.raises(ValueError, match=r"RecordEpisode must wrap the env below TextActions"):
        RecordEpisode(TextActions(base, tools=("ask", "submit")), tmp_path)
    with pytest.raises(ValueError, match=r"RecordEpisode must wrap the env below ShapedReward"):
        RecordEpisode(ShapedReward(base), tmp_path)
    with pytest.raises(ValueError, match="name_prefix must be a non-empty file-name prefix without '/', got 'a/b'"):
        RecordEpisode(base, tmp_path, name_prefix="a/b")
    with pytest.raises(TypeError, match="directory must be a non-empty str or Path, got None"):
        RecordEpisode(base, None)  # type: ignore[arg-type]
    recorder = RecordEpisode(base, tmp_path / "x", name_prefix="ep")
    assert recorder.spec.additional_wrappers[-1].kwargs == {"directory": str(tmp_path / "x"), "name_prefix": "ep"}
    assert not (tmp_path / "x").exists()  # nothing is written before the first reset
    recorder.reset(seed=0)
    again = RecordEpisode(gymnasium.make(CLARIFY), tmp_path / "x", name_prefix="ep")
    again.reset(seed=0)
    assert [p.name for p in (*recorder.paths, *again.paths)] == ["ep-0.jsonl", "ep-1.jsonl"]  # never overwritten


def test_doctests_pass():
    assert doctest.testmod(icae_env.wrappers.record_episode, raise_on_error=False).failed == 0
