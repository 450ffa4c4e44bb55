"""run_episode, trajectories and their replay, and the suite runner's outputs."""

import json

import pytest

import icae_env
from icae_env.baselines.oracle_agent import OracleAgent
from icae_env.run import EpisodeResult, format_table, resolve_tasks, run_episode, run_suite
from icae_env.run.trajectory import TrajectoryWriter, read_trajectory, replay
from icae_env.tasks import list_tasks


class Scripted:
    name = "scripted"

    def __init__(self, actions):
        self.actions = list(actions)

    def reset(self, observation, info, seed):
        self.queue = list(self.actions)

    def act(self, observation, info):
        if not self.queue:
            return {"tool": "submit"}
        action = self.queue.pop(0)
        if action == "boom":
            raise RuntimeError("policy crashed")
        return action


@pytest.fixture
def env(mini_pack):
    environment = icae_env.make("icae/ProjectBuild-v0", task=str(mini_pack), max_steps=20)
    yield environment
    environment.close()


def test_episode_result_and_trajectory_replay(env, tmp_path):
    actions = [
        {"tool": "bash", "command": "echo hi > a.txt && cat a.txt"},
        {"tool": "ask", "question": "output format?"},
        '{"tool": "view", "path": "a.txt"}',
        {"tool": "bogus"},
    ]
    path = tmp_path / "t.jsonl"
    result = run_episode(env, Scripted(actions), seed=3, trajectory=path)
    assert isinstance(result, EpisodeResult)
    assert (result.steps, result.terminated, result.overall, result.error) == (5, True, 0.0, None)
    records = list(read_trajectory(path))
    assert [r["type"] for r in records] == ["reset"] + ["step"] * 5
    assert records[1]["observation"]["output"] == "hi\n" and records[4]["info"]["action_error"]
    assert records[-1]["info"]["score"]["tiers"]["native"]["failure_reason"] == "no_test_sh"
    report = replay(path)
    assert report.ok and report.steps == 5


def test_replay_detects_a_difference(env, tmp_path):
    path = tmp_path / "t.jsonl"
    run_episode(env, Scripted([{"tool": "bash", "command": "echo one"}]), trajectory=path)
    lines = path.read_text().splitlines()
    step = json.loads(lines[1])
    step["observation"]["output"] = "two\n"
    path.write_text("\n".join([lines[0], json.dumps(step), *lines[2:]]) + "\n")
    report = replay(path)
    assert not report.ok and report.mismatches[0] == {"step": 1, "field": "output"}
    with pytest.raises(ValueError, match="no reset record"):
        (tmp_path / "empty.jsonl").write_text("")
        replay(tmp_path / "empty.jsonl")


def test_torn_last_line_is_skipped(tmp_path):
    writer = TrajectoryWriter(tmp_path / "t.jsonl")
    writer.write_step(1, {"tool": "submit"}, {"output": "x"}, 0.0, True, False, {})
    writer.close()
    writer.close()
    with open(tmp_path / "t.jsonl", "a") as handle:
        handle.write('{"type": "step", "ste')
    assert len(list(read_trajectory(tmp_path / "t.jsonl"))) == 1
    with pytest.raises(ValueError, match="closed"):
        writer.write_step(2, {}, {}, 0.0, False, False, {})


def test_policy_failure_becomes_a_result(env):
    result = run_episode(env, Scripted([{"tool": "bash", "command": "true"}, "boom"]), seed=1)
    assert result.error == "RuntimeError: policy crashed" and "Traceback" in result.traceback
    assert result.steps == 1
    with pytest.raises(RuntimeError, match="policy crashed"):
        run_episode(env, Scripted(["boom"]), debug=True)


def test_run_suite_writes_results_incrementally(mini_pack, tmp_path):
    results = run_suite(OracleAgent, [str(mini_pack)], ("L1", "L3"), (0, 1), out_dir=tmp_path, progress=False)
    assert [(r.level, r.seed, r.overall) for r in results] == [
        ("L1", 0, 1.0),
        ("L1", 1, 1.0),
        ("L3", 0, 1.0),
        ("L3", 1, 1.0),
    ]
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["agent"] == "oracle"
    summary = (tmp_path / "summary.md").read_text()
    assert "| mini-echo | L1 | 100.0 |" in summary and "| MEAN |" in summary
    assert "MEAN" in format_table(results)


def test_resolve_tasks():
    assert resolve_tasks("builtin") == list_tasks() and len(list_tasks()) == 12
    assert resolve_tasks("a, b") == ["a", "b"]
    with pytest.raises(ValueError, match="no tasks selected"):
        resolve_tasks(" , ")
