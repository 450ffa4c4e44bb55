"""``icae/Clarify-v0``: checker, rewards, termination, agent mistakes, validation, memo exactness, benchmark."""

from __future__ import annotations

import doctest
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence

import icae_env.envs.clarify as clarify
from icae_env.actions import MAX_QUESTION_CHARS, Ask, Submit
from icae_env.envs.clarify import STOP, ClarifyEnv
from icae_env.errors import ResetNeeded, TaskNotFoundError
from icae_env.tasks import list_tasks, load_task
from icae_env.user_agent.grounded import MemoRouter

ROOT = Path(__file__).resolve().parents[2]
ENV_ID = "icae/Clarify-v0"
TASK = "builtin/dep-resolver"
HIT = "how are cycles reported"  # an exact trigger of dep-resolver's task-specific record C004 (L1)
MISS = "what is the weather like today"
SOURCE_USER, SOURCE_ENV = 1, 2


@pytest.fixture
def env():
    environment = ClarifyEnv(task=TASK, budget=4, question_cost=0.05)
    yield environment
    environment.close()


def test_check_env_passes_on_every_builtin_task():
    environment = ClarifyEnv(task=list_tasks(), budget=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning is a failure too
        check_env(environment, skip_render_check=True)


def test_check_env_passes_through_the_registry_with_render_modes():
    assert ENV_ID in gymnasium.registry  # registered by icae_env.registration
    environment = gymnasium.make(ENV_ID, task=TASK, budget=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(environment.unwrapped)
    environment.close()


def test_first_observation_is_the_prd(env):
    obs, info = env.reset(seed=0)
    task = load_task(TASK)
    assert obs == {"output": task.prd("L1"), "source": SOURCE_ENV, "exit_code": -1, "questions_left": 4, "step": 0}
    own = [c.constraint_id for c in task.user_agent_data("L1").hidden_constraints if c.is_task_specific]
    assert info["targets"] == len(own) == 10
    assert (info["task"], info["level"], info["task_coverage"], info["questions_used"]) == (
        "dep-resolver",
        "L1",
        0.0,
        0,
    )
    assert obs in env.observation_space


def test_reward_is_new_task_specific_recovery_minus_the_question_cost(env):
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(HIT)
    assert info["recovered"] == ("C004",) and "C004" in info["constraint_ids"]
    assert reward == pytest.approx(0.1 - 0.05)
    assert info["reward_terms"] == {"recovery": pytest.approx(0.1), "question_cost": -0.05}
    assert (obs["source"], obs["questions_left"], obs["step"], terminated, truncated) == (
        SOURCE_USER,
        3,
        1,
        False,
        False,
    )
    _, reward, *_, info = env.step(HIT)  # asked again: nothing new, the question still costs
    assert info["recovered"] == () and reward == pytest.approx(-0.05)
    _, reward, *_, info = env.step(MISS)
    assert info["fallback"] and reward == pytest.approx(-0.05) and info["questions_used"] == 3


def test_the_return_is_coverage_minus_cost_and_the_budget_terminates(env):
    env.reset(seed=0)
    questions = [HIT, "what is the cycle error format", "what does the output look like", "how are packages ordered"]
    total = 0.0
    for i, question in enumerate(questions):
        obs, reward, terminated, truncated, info = env.step(question)
        total += reward
        assert terminated is (i == 3) and not truncated
    assert total == pytest.approx(info["task_coverage"] - 0.05 * 4)
    assert info["stats"]["task_coverage"] == pytest.approx(100 * info["task_coverage"])
    assert info["stats"]["turns_used"] == 4 and obs["questions_left"] == 0
    with pytest.raises(ResetNeeded, match=r"the episode is over; call reset\(\)"):
        env.step(HIT)


@pytest.mark.parametrize("stop", [STOP, "   ", {"tool": "submit"}, {"tool": "stop"}, Submit()])
def test_stop_actions_end_the_episode_for_free(env, stop):
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(stop)
    assert (reward, terminated, truncated, obs["questions_left"]) == (0.0, True, False, 4)
    assert info["stats"]["turns_used"] == 0 and info["action_error"] is None


@pytest.mark.parametrize("ask", [f"  {HIT}  ", {"tool": "ask", "question": HIT}, Ask(question=HIT)])
def test_questions_may_be_text_dicts_or_models(env, ask):
    env.reset(seed=0)
    *_, info = env.step(ask)
    assert info["question"] == HIT and info["recovered"] == ("C004",)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (42, "got int"),
        ({"tool": "bash", "command": "ls"}, "got tool 'bash'"),
        ({"tool": "ask", "question": 7}, "the question must be text, got int"),
        ("q" * (MAX_QUESTION_CHARS + 1), f"the limit is {MAX_QUESTION_CHARS}"),
    ],
)
def test_agent_mistakes_are_observations_that_cost_a_step_not_a_question(env, action, message):
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)
    assert message in info["action_error"] and obs["output"] == f"Action error: {info['action_error']}"
    assert (obs["source"], obs["questions_left"], obs["step"], terminated) == (SOURCE_ENV, 4, 1, False)
    assert reward == pytest.approx(-0.05) and info["questions_used"] == 0
    assert env.step(HIT)[4]["recovered"] == ("C004",)  # the episode goes on


def test_max_steps_truncates():
    environment = ClarifyEnv(task=TASK, budget=5, max_steps=2)
    environment.reset(seed=0)
    assert environment.step(42)[3] is False
    obs, _, terminated, truncated, info = environment.step(42)
    assert (terminated, truncated, obs["step"]) == (False, True, 2) and "stats" in info


def test_seeded_task_choice_and_reset_options():
    environment = ClarifyEnv(task=list_tasks(), budget=2)
    first = [environment.reset(seed=s)[1]["task"] for s in range(8)]
    assert first == [environment.reset(seed=s)[1]["task"] for s in range(8)] and len(set(first)) > 1
    _, info = environment.reset(seed=0, options={"task": "builtin/unidiff", "level": "L2"})
    assert (info["task"], info["level"]) == ("unidiff", "L2")
    with pytest.raises(ValueError, match=r"unknown reset options \['budget'\]"):
        environment.reset(options={"budget": 3})
    with pytest.raises(TaskNotFoundError, match="no task named or at 'builtin/nope'"):
        environment.reset(options={"task": "builtin/nope"})


def test_levels_and_task_packs(mini_pack, mini_task):
    environment = ClarifyEnv(task=mini_task)
    with pytest.raises(ValueError, match="level must be one of"):
        environment.reset(options={"level": "L9"})
    _, info = ClarifyEnv(task=str(mini_pack), level="L3").reset(seed=0)
    assert (info["task"], info["targets"]) == ("mini-echo", 1)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"budget": 0}, ValueError, "budget must be an int >= 1, got 0"),
        ({"budget": True}, ValueError, "budget must be an int >= 1, got True"),
        ({"max_steps": 0}, ValueError, "max_steps must be an int >= 1, got 0"),
        ({"memo_size": -1}, ValueError, "memo_size must be an int >= 0, got -1"),
        ({"question_cost": -0.1}, ValueError, "question_cost must be a finite number >= 0, got -0.1"),
        ({"question_cost": float("nan")}, ValueError, "question_cost must be a finite number >= 0, got nan"),
        ({"level": "L4"}, ValueError, r"level must be one of \['L1', 'L2', 'L3', 'ground'\], got 'L4'"),
        ({"render_mode": "human"}, ValueError, "render_mode must be None or 'ansi', got 'human'"),
        ({"router": "lexcal"}, ValueError, "unknown router 'lexcal'.*did you mean 'lexical'"),
        ({"task": []}, TypeError, "task must be a name, path, Task or a non-empty sequence"),
    ],
)
def test_bad_arguments_are_rejected(kwargs, error, message):
    with pytest.raises(error, match=message):
        ClarifyEnv(**kwargs)


def test_step_before_reset_and_render():
    environment = ClarifyEnv(task=TASK, render_mode="ansi")
    with pytest.raises(ResetNeeded, match=r"call reset\(\) before step\(\)"):
        environment.step(HIT)
    with pytest.raises(ResetNeeded, match=r"call reset\(\) first"):
        environment.task  # noqa: B018
    assert environment.render() is None
    environment.reset(seed=0)
    assert environment.task.id == "dep-resolver"
    obs, *_ = environment.step(HIT)
    assert environment.render() == obs["output"]
    environment.close()
    environment.close()


def test_the_memo_changes_no_reply():
    questions = [HIT, MISS, "what is the api", HIT, "what about a package that depends on itself", MISS, "x"]
    plain, memo = (
        ClarifyEnv(task=TASK, budget=len(questions), memo_size=0),
        ClarifyEnv(task=TASK, budget=len(questions)),
    )
    for environment in (plain, memo):
        environment.reset(seed=1)
    for question in questions:
        assert data_equivalence(plain.step(question), memo.step(question), exact=True)
    inner = memo._agents[("builtin:dep-resolver", "L1")].router.inner
    router = MemoRouter(inner, max_entries=2)
    assert [router.route(q) for q in (HIT, MISS, "x", HIT)] == [inner.route(q) for q in (HIT, MISS, "x", HIT)]
    assert len(router._memo) <= 2
    with pytest.raises(ValueError, match="max_entries must be an int >= 1, got 0"):
        MemoRouter(router, 0)


def test_the_throughput_benchmark_prints_steps_per_second():
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/clarify_throughput.py"), "--steps", "2000", "--router", "distilled"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if "steps/s" in line]
    assert len(lines) == 2 and all(float(line.split()[1].replace(",", "")) > 0 for line in lines)
    assert all("distilled router" in line for line in lines)


def test_doctests_pass():
    assert doctest.testmod(clarify, raise_on_error=False).failed == 0
