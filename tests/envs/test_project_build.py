"""``icae/ProjectBuild-v0``: observations, reset options, every tool, scoring, reward, truncation, validation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from gymnasium.utils.seeding import np_random
from packs import TEST_SH, spec, write_pack

import icae_env
from icae_env.actions import Ask, Bash, Submit, View, WriteFile
from icae_env.envs.project_build import ProjectBuildEnv
from icae_env.envs.state import COUNTERS, Timing
from icae_env.errors import TaskNotFoundError
from icae_env.kinds.build import RewardConfig
from icae_env.tasks import LEVELS, Task, list_tasks, load_task

ENV_ID = "icae/ProjectBuild-v0"
SOURCE_TOOL, SOURCE_USER, SOURCE_ENV = 0, 1, 2
HIT_QUESTION = "what is the output format"  # hits mini-echo's C001 at L1 and L2
MISS_QUESTION = "what is the weather like today"


@pytest.fixture
def make_env(mini_pack: Path):
    """Build envs through the registry (mini-echo pack by default) and close them all at teardown."""
    envs = []

    def factory(**kwargs):
        kwargs.setdefault("task", str(mini_pack))
        env = icae_env.make(ENV_ID, **kwargs)
        envs.append(env)
        return env

    yield factory
    for env in envs:
        env.close()


@pytest.fixture
def env(make_env):
    env = make_env()
    env.reset(seed=0)
    return env


def golden_writes(task: Task) -> list[dict]:
    """write_file actions that rebuild the task's golden solution (read on the test side)."""
    assert task.golden_dir is not None
    return [
        {"tool": "write_file", "path": p.relative_to(task.golden_dir).as_posix(), "content": p.read_text()}
        for p in sorted(task.golden_dir.rglob("*"))
        if p.is_file()
    ]


def run(env, *actions):
    """Step through ``actions``; return the last step's 5-tuple."""
    result = None
    for action in actions:
        result = env.step(action)
    return result


# -- first observation and reset options --------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_first_observation_has_the_prd_and_the_intro(make_env, mini_task, level):
    env = make_env(level=level, budget=5)
    obs, info = env.reset(seed=0)
    assert obs["output"].startswith(mini_task.prd(level))
    assert all(f"# {other}\n" not in obs["output"] for other in LEVELS if other != level)
    assert "you have 5 questions" in obs["output"]
    assert "submit()" in obs["output"] and "ask(question)" in obs["output"]
    assert (obs["source"], obs["exit_code"], obs["questions_left"], obs["step"]) == (SOURCE_ENV, -1, 5, 0)
    assert obs in env.observation_space
    assert (info["task"], info["level"], info["tool"], info["action_error"]) == ("mini-echo", level, "reset", None)
    assert list(env.unwrapped.workspace.iterdir()) == []


def test_each_reset_starts_an_empty_workspace(env):
    run(env, {"tool": "write_file", "path": "left/over.txt", "content": "x"})
    assert (env.unwrapped.workspace / "left" / "over.txt").is_file()
    obs, _ = env.reset()
    assert list(env.unwrapped.workspace.iterdir()) == []
    obs, *_ = env.step({"tool": "view", "path": "."})
    assert obs["output"] == "(empty directory)\n"


def test_reset_options_switch_task_and_level(env):
    lint = load_task("builtin/config-lint")
    obs, info = env.reset(options={"task": "builtin/config-lint", "level": "L2"})
    assert (info["task"], info["level"]) == ("config-lint", "L2")
    assert obs["output"].startswith(lint.prd("L2")) and lint.prd("L2") != lint.prd("L1")
    assert env.unwrapped.task.id == "config-lint"
    obs, info = env.reset(options={"level": "ground"})
    assert (info["task"], info["level"]) == ("mini-echo", "ground")
    obs, info = env.reset()
    assert (info["task"], info["level"]) == ("mini-echo", "L1"), "options apply to one episode only"


def test_reset_options_are_validated(env):
    with pytest.raises(ValueError, match=r"level must be one of .*got 'L9'"):
        env.reset(options={"level": "L9"})
    with pytest.raises(TaskNotFoundError, match=r"no task named or at 'builtin/nope'"):
        env.reset(options={"task": "builtin/nope"})
    with pytest.raises(TypeError, match="got 3"):
        env.reset(options={"task": 3})
    with pytest.raises(ValueError, match=r"unknown reset options \['seed'\]"):
        env.reset(options={"seed": 1})
    obs, *_ = env.step({"tool": "bash", "command": "echo still here"})
    assert obs["output"] == "still here\n", "a rejected reset leaves the running episode alone"


def test_a_task_without_the_level_raises(make_env, tmp_path):
    pack = write_pack(tmp_path / "two", task=spec(id="two-levels", levels={"L1": {"hidden": ["C001"]}}))
    for level in ("L2", "L3"):
        (pack / "prd" / f"{level}.md").unlink()
    assert sorted(load_task(pack).levels) == ["L1", "ground"]
    env = make_env(task=str(pack))
    with pytest.raises(TaskNotFoundError, match=r"task 'two-levels' has no level 'L3'; available: \['L1', 'ground'\]"):
        env.reset(options={"level": "L3"})


def test_a_task_list_is_drawn_from_the_seeded_generator(make_env, mini_pack):
    choices = [*list_tasks()[:3], str(mini_pack)]
    names = [load_task(c).id for c in choices]
    env = make_env(task=choices)
    drawn = []
    for seed in range(12):
        _, info = env.reset(seed=seed)
        expected = names[int(np_random(seed)[0].integers(len(choices)))]
        assert info["task"] == expected, f"seed {seed}"
        drawn.append(info["task"])
    assert len(set(drawn)) > 1, "the draw must depend on the seed"
    other = make_env(task=choices)
    env.reset(seed=42)
    other.reset(seed=42)
    follow = [env.reset()[1]["task"] for _ in range(6)]
    assert follow == [other.reset()[1]["task"] for _ in range(6)], "unseeded resets continue the seeded stream"


# -- actions and tools ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        {"tool": "bash", "command": "echo hi"},
        Bash(command="echo hi"),
        json.dumps({"tool": "bash", "command": "echo hi"}),
    ],
    ids=["dict", "model", "json"],
)
def test_actions_as_dict_model_or_json(env, action):
    assert env.action_space.contains(action)
    obs, reward, terminated, truncated, info = env.step(action)
    assert (obs["output"], obs["exit_code"], obs["source"]) == ("hi\n", 0, SOURCE_TOOL)
    assert (reward, terminated, truncated, info["action_error"], info["tool"]) == (0.0, False, False, None, "bash")


def test_every_model_type_is_accepted(env):
    obs, *_ = env.step(WriteFile(path="m.txt", content="model\n"))
    assert obs["output"] == "Wrote 6 characters to m.txt"
    obs, *_ = env.step(View(path="m.txt"))
    assert obs["output"] == "     1\tmodel\n"
    obs, *_ = env.step(Ask(question=HIT_QUESTION))
    assert obs["source"] == SOURCE_USER
    _, _, terminated, _, info = env.step(Submit())
    assert terminated and info["score"] is not None


def test_bash_keeps_cwd_and_variables(env):
    run(env, {"tool": "bash", "command": "mkdir -p a/b && cd a/b && export GREETING=hello"})
    obs, *_ = env.step({"tool": "bash", "command": "pwd; echo $GREETING"})
    cwd, greeting = obs["output"].splitlines()
    assert cwd.endswith("/a/b") and greeting == "hello"
    obs, *_ = env.step({"tool": "bash", "command": "exit 3"})
    assert obs["exit_code"] == 3


def test_write_file_then_view(env):
    obs, *_ = env.step({"tool": "write_file", "path": "pkg/notes.txt", "content": "one\ntwo\nthree\nfour\n"})
    assert obs["output"] == "Wrote 19 characters to pkg/notes.txt"
    assert (env.unwrapped.workspace / "pkg" / "notes.txt").read_text() == "one\ntwo\nthree\nfour\n"
    obs, *_ = env.step({"tool": "view", "path": "pkg/notes.txt"})
    assert obs["output"] == "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n"
    obs, *_ = env.step({"tool": "view", "path": "pkg/notes.txt", "range": [2, 3]})
    assert obs["output"] == "     2\ttwo\n     3\tthree\n"
    obs, _, _, _, info = env.step({"tool": "view", "path": "pkg/notes.txt", "range": [3, 1]})
    assert "view range must be 1 <= start <= end, got [3, 1]" in info["action_error"]


def test_view_lists_a_directory(env):
    run(
        env,
        {"tool": "write_file", "path": "top.txt", "content": "t"},
        {"tool": "write_file", "path": "src/mod.py", "content": "m"},
        {"tool": "bash", "command": "mkdir -p src/deep/deeper && touch src/deep/deeper/hidden-from-listing"},
    )
    obs, _, _, _, info = env.step({"tool": "view", "path": "."})
    assert info["action_error"] is None
    entries = set(obs["output"].splitlines())
    assert entries == {"./top.txt", "./src/", "./src/mod.py", "./src/deep/"}, "two levels deep, dirs end in /"
    obs, *_ = env.step({"tool": "view", "path": "src"})
    assert set(obs["output"].splitlines()) == {"src/mod.py", "src/deep/", "src/deep/deeper/"}


def test_str_replace_needs_exactly_one_occurrence(env):
    path = env.unwrapped.workspace / "f.py"
    run(env, {"tool": "write_file", "path": "f.py", "content": "a = 1\nb = 1\nc = 2\n"})
    obs, _, _, _, info = env.step({"tool": "str_replace", "path": "f.py", "old": "c = 2", "new": "c = 3"})
    assert (obs["output"], info["action_error"]) == ("Replaced 1 occurrence in f.py", None)
    assert path.read_text() == "a = 1\nb = 1\nc = 3\n"
    obs, _, _, _, info = env.step({"tool": "str_replace", "path": "f.py", "old": "zzz", "new": "y"})
    assert "found no occurrence" in info["action_error"] and obs["output"].startswith("Action error:")
    assert obs["source"] == SOURCE_ENV
    obs, _, _, _, info = env.step({"tool": "str_replace", "path": "f.py", "old": "= 1", "new": "= 9"})
    assert "found 2 occurrences" in info["action_error"]
    assert path.read_text() == "a = 1\nb = 1\nc = 3\n", "a failed replace leaves the file alone"
    assert info["counters"]["action_errors"] == 2


def test_ask_uses_the_question_budget(make_env):
    env = make_env(budget=2)
    obs, _ = env.reset(seed=0)
    assert obs["questions_left"] == 2
    obs, _, _, _, info = env.step({"tool": "ask", "question": HIT_QUESTION})
    assert (obs["source"], obs["exit_code"], obs["questions_left"]) == (SOURCE_USER, -1, 1)
    assert obs["output"] == "Output is upper case plus newline."
    assert info["action_error"] is None
    obs, *_ = env.step({"tool": "ask", "question": MISS_QUESTION})
    assert (obs["output"], obs["questions_left"]) == ("No details on that.", 0)
    for _ in range(2):
        obs, _, _, _, info = env.step({"tool": "ask", "question": HIT_QUESTION})
        assert obs["source"] == SOURCE_USER and obs["questions_left"] == 0
        assert "used all 2 questions" in obs["output"]
        assert obs in env.observation_space
    assert info["counters"]["ask"] == 4 and info["counters"]["fallbacks"] == 1


# -- submit, reward and truncation ---------------------------------------------------------------------------------


def _expected_reward(score: dict) -> float:
    return score["components"]["overall"] + 0.2 * score["components"]["task_coverage"]


def test_submitting_the_golden_scores_full_marks(env, mini_task):
    run(env, {"tool": "ask", "question": HIT_QUESTION}, *golden_writes(mini_task))
    obs, reward, terminated, truncated, info = env.step({"tool": "submit"})
    score = info["score"]
    assert (terminated, truncated, obs["source"]) == (True, False, SOURCE_ENV)
    assert score["overall"] == 1.0 and score["components"]["overall"] == 1.0
    assert score["components"]["task_coverage"] == pytest.approx(score["interaction"]["task_coverage"] / 100)
    assert score["components"]["task_coverage"] > 0, "the question hit a task-specific record"
    assert reward == pytest.approx(_expected_reward(score)) and reward > 1.0
    assert score["reward"] == reward
    assert all(tier["failure_reason"] is None for tier in score["tiers"].values())


@pytest.mark.slow
@pytest.mark.parametrize("name", list_tasks())
def test_golden_of_every_builtin_task_scores_full_marks(make_env, name):
    task = load_task(name)
    env = make_env(task=name)
    env.reset(seed=0)
    first_own = next(c for c in task.level("L1").hidden_constraints if c.is_task_specific)
    run(env, {"tool": "ask", "question": first_own.trigger_keywords[0]}, *golden_writes(task))
    _, reward, terminated, _, info = env.step({"tool": "submit"})
    score = info["score"]
    assert terminated and score["overall"] == 1.0, score["tiers"]
    assert score["components"]["task_coverage"] > 0
    assert reward == pytest.approx(_expected_reward(score))


def test_submitting_an_empty_workspace_scores_zero(make_env):
    env = make_env(task="builtin/config-lint")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step({"tool": "submit"})
    score = info["score"]
    assert terminated and reward == 0.0 and score["overall"] == 0.0
    assert set(score["tiers"]) == {"public", "native", "enhanced"}
    assert {tier["failure_reason"] for tier in score["tiers"].values()} == {"no_test_sh"}
    assert info["counters"]["submit"] == 1


def test_max_steps_truncates_and_scores(make_env, mini_task):
    env = make_env(max_steps=len(golden_writes(mini_task)))
    env.reset(seed=0)
    results = [env.step(a) for a in golden_writes(mini_task)]
    assert all(not (r[2] or r[3]) for r in results[:-1])
    obs, reward, terminated, truncated, info = results[-1]
    assert (terminated, truncated, obs["step"]) == (False, True, env.unwrapped.max_steps)
    assert info["score"] is not None and info["score"]["overall"] == 1.0
    assert reward == pytest.approx(_expected_reward(info["score"])) and reward > 0


def test_truncation_without_scoring(make_env, mini_task):
    env = make_env(max_steps=len(golden_writes(mini_task)), score_on_truncation=False)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = run(env, *golden_writes(mini_task))
    assert (terminated, truncated) == (False, True)
    assert info["score"] is None and reward == 0.0


def test_the_wall_clock_limit_truncates(make_env):
    env = make_env(time_limit_s=0.5, score_on_truncation=False)
    env.reset(seed=0)
    _, _, terminated, truncated, _ = env.step({"tool": "bash", "command": "echo quick"})
    assert (terminated, truncated) == (False, False)
    _, reward, terminated, truncated, info = env.step({"tool": "bash", "command": "sleep 1"})
    assert (terminated, truncated, reward, info["score"]) == (False, True, 0.0, None)


def test_reward_weights_change_the_reward(make_env, mini_pack):
    """A workspace that passes the public case only: Overall 0, Public 1."""
    loud_a = "print('A')\n"
    actions = [
        {"tool": "write_file", "path": "adapter.py", "content": loud_a},
        {"tool": "write_file", "path": "rcb_tests/test.sh", "content": TEST_SH},
        {"tool": "submit"},
    ]
    default = make_env()
    default.reset(seed=0)
    _, default_reward, _, _, info = run(default, *actions)
    assert info["score"]["components"]["public"] == 1.0 and info["score"]["overall"] == 0.0
    assert default_reward == 0.0
    weights = {"overall": 0, "public": 1}
    custom = make_env(reward=weights)
    custom.reset(seed=0)
    _, custom_reward, _, _, info = run(custom, *actions)
    assert custom_reward == 1.0
    assert custom_reward == RewardConfig(**weights).total(info["score"]["components"])
    with pytest.raises(ValueError, match="bogus"):
        ProjectBuildEnv(task=str(mini_pack), reward={"bogus": 1.0})


def test_info_carries_timing_and_counters(env):
    actions = [
        {"tool": "bash", "command": "echo x"},
        {"tool": "bash", "command": "false"},
        {"tool": "write_file", "path": "a.txt", "content": "a"},
        {"tool": "view", "path": "a.txt"},
        {"tool": "view", "path": "missing.txt"},
        {"tool": "str_replace", "path": "a.txt", "old": "zzz", "new": "b"},
        {"tool": "ask", "question": MISS_QUESTION},
        "{not json",
    ]
    infos = [env.step(a)[4] for a in actions]
    for info in infos:
        assert isinstance(info["timing"], Timing)
        assert all(isinstance(v, float) and v >= 0 for v in info["timing"].as_dict().values())
        assert set(info["counters"]) == set(COUNTERS)
    bash_timing, ask_timing = infos[0]["timing"], infos[6]["timing"]
    assert bash_timing.sandbox_s > 0 and bash_timing.user_agent_s == 0.0
    assert ask_timing.user_agent_s > 0 and ask_timing.sandbox_s == 0.0
    assert bash_timing.total_s >= bash_timing.sandbox_s
    expected = dict.fromkeys(COUNTERS, 0)
    expected.update(steps=8, bash=2, write_file=1, view=2, str_replace=1, ask=1, action_errors=3, fallbacks=1)
    assert infos[-1]["counters"] == expected
    _, _, _, _, info = env.step({"tool": "submit"})
    assert info["counters"] == {**expected, "steps": 9, "submit": 1}
    assert info["timing"].scoring_s > 0
    assert isinstance(info["episode_timing"], Timing)
    assert info["episode_timing"].total_s >= info["timing"].total_s


def test_render_ansi_returns_the_last_output(make_env):
    env = make_env(render_mode="ansi")
    obs, _ = env.reset(seed=0)
    assert env.render() == obs["output"]
    env.step({"tool": "bash", "command": "echo rendered"})
    assert env.render() == "rendered\n"
    quiet = make_env()
    quiet.reset(seed=0)
    assert quiet.render() is None


def test_render_ansi_before_reset_is_none(mini_pack):
    env = ProjectBuildEnv(task=str(mini_pack), render_mode="ansi")
    assert env.render() is None
    env.close()


# -- constructor validation -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "shown"),
    [
        ({"budget": -1}, ValueError, "budget must be an int >= 0, got -1"),
        ({"budget": 2.5}, ValueError, "budget must be an int >= 0, got 2.5"),
        ({"max_steps": 0}, ValueError, "max_steps must be an int >= 1, got 0"),
        ({"level": "L9"}, ValueError, "got 'L9'"),
        ({"sandbox": "nope"}, ValueError, "unknown sandbox backend 'nope'"),
        ({"sandbox_options": {"isolation": "chroot"}}, ValueError, "got 'chroot'"),
        ({"render_mode": "human"}, ValueError, "got 'human'"),
        ({"time_limit_s": 0}, ValueError, "time_limit_s must be > 0 or None, got 0"),
        ({"task": 3}, TypeError, "got 3"),
        ({"task": []}, TypeError, "got []"),
    ],
    ids=lambda v: repr(v) if isinstance(v, dict) else None,
)
@pytest.mark.filterwarnings("ignore:.*not in the possible render_modes")
def test_bad_constructor_arguments(kwargs, error, shown):
    with pytest.raises(error, match=re.escape(shown)):
        ProjectBuildEnv(**kwargs)
    with pytest.raises(error, match=re.escape(shown)):
        icae_env.make(ENV_ID, **kwargs)


def test_bool_budget_is_rejected_at_construction():
    with pytest.raises(ValueError, match="got True"):
        ProjectBuildEnv(budget=True)
