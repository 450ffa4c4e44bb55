"""``ShapedReward``: each dense term, that they add up, that the mirror agrees with the env, and placement checks."""

from __future__ import annotations

import doctest
import re

import pytest
from packs import ADAPTER, TEST_SH

import icae_env
import icae_env.wrappers.shaped_reward
from icae_env.envs.clarify import ClarifyEnv
from icae_env.wrappers import ShapedReward, TextActions

HIT, MISS = "what is the output format", "what is the weather like today"  # mini-echo: C001 / the fallback
TEST_COMMAND = icae_env.wrappers.shaped_reward._TEST_COMMAND
RUN_TESTS = {"tool": "bash", "command": "bash rcb_tests/test.sh"}
WEIGHTS = {"constraint": 0.3, "public": 0.5, "fallback": 0.1}


@pytest.fixture
def env(mini_pack):
    environment = ShapedReward(icae_env.make("icae/ProjectBuild-v0", task=str(mini_pack), level="L1"), **WEIGHTS)
    environment.reset(seed=0)
    yield environment
    environment.close()


def terms_of(step) -> dict:
    *_, info = step
    shaping = info["shaping"]
    assert set(shaping) == {"env", "constraint", "public", "fallback", "total"}
    assert shaping["total"] == pytest.approx(sum(v for k, v in shaping.items() if k != "total"))
    assert step[1] == pytest.approx(shaping["total"])  # the reward is the env's plus every term
    return shaping


def test_a_newly_recovered_task_specific_record_pays_once(env):
    assert terms_of(env.step({"tool": "ask", "question": HIT})) == {
        "env": 0.0, "constraint": 0.3, "public": 0.0, "fallback": 0.0, "total": 0.3
    }  # fmt: skip
    assert terms_of(env.step({"tool": "ask", "question": HIT}))["constraint"] == 0.0


def test_a_fallback_reply_is_penalised(env):
    shaping = terms_of(env.step({"tool": "ask", "question": MISS}))
    assert (shaping["fallback"], shaping["constraint"]) == (-0.1, 0.0)
    assert terms_of(env.step({"tool": "bash", "command": "echo hi"}))["fallback"] == 0.0


def test_public_progress_pays_when_the_agent_runs_the_public_tests(env):
    assert terms_of(env.step(RUN_TESTS))["public"] == 0.0  # nothing delivered yet: Public fails
    env.step({"tool": "write_file", "path": "adapter.py", "content": ADAPTER})
    env.step({"tool": "write_file", "path": "rcb_tests/test.sh", "content": TEST_SH})
    assert terms_of(env.step({"tool": "bash", "command": "chmod +x rcb_tests/test.sh"}))["public"] == 0.0
    assert terms_of(env.step(RUN_TESTS))["public"] == 0.5  # Public goes 0 -> 1
    assert terms_of(env.step(RUN_TESTS))["public"] == 0.0  # no new progress
    env.step({"tool": "write_file", "path": "adapter.py", "content": "print('broken')\n"})
    assert terms_of(env.step(RUN_TESTS))["public"] == 0.0  # breaking costs nothing here ...
    env.step({"tool": "write_file", "path": "adapter.py", "content": ADAPTER})
    assert terms_of(env.step(RUN_TESTS))["public"] == 0.0  # ... and fixing again pays nothing: no farming


def test_the_final_reward_keeps_the_env_score_and_the_mirror_agrees_with_it(env):
    env.step({"tool": "ask", "question": HIT})
    env.step({"tool": "ask", "question": MISS})
    *_, terminated, _, info = env.step({"tool": "submit"})
    assert terminated and info["shaping"]["env"] == pytest.approx(info["score"]["reward"])
    assert info["score"]["interaction"]["triggers_hit"] == ["C001"]
    assert info["score"]["interaction"]["fallbacks"] == 1  # what the mirror penalised


def test_on_clarify_the_env_reports_the_hits():
    environment = ShapedReward(ClarifyEnv(task="builtin/dep-resolver", question_cost=0.0), constraint=1.0)
    environment.reset(seed=0)
    assert not hasattr(environment, "_mirror")  # no User Agent of its own: the env reports the hits
    shaping = terms_of(environment.step("how are cycles reported"))
    assert (shaping["env"], shaping["constraint"]) == (pytest.approx(0.1), 1.0)


@pytest.mark.parametrize(
    ("command", "runs"),
    [
        ("bash rcb_tests/test.sh", True),
        ("./rcb_tests/test.sh --cases-dir public_test_cases", True),
        ("cd /tmp && cd - && sh rcb_tests/test.sh", True),
        ("rcb_tests/test.sh; echo done", True),
        ("chmod +x rcb_tests/test.sh", False),
        ("cat rcb_tests/test.sh", False),
        ("bash rcb_tests/test.shx", False),
    ],
)
def test_what_counts_as_running_the_public_tests(command, runs):
    assert bool(re.search(icae_env.wrappers.shaped_reward._TEST_COMMAND, command)) is runs


def test_reset_starts_the_terms_afresh(env):
    env.step({"tool": "ask", "question": HIT})
    env.reset(seed=0)
    assert terms_of(env.step({"tool": "ask", "question": HIT}))["constraint"] == 0.3


def test_placement_and_arguments_are_checked(mini_pack):
    base = icae_env.make("icae/ProjectBuild-v0", task=str(mini_pack))
    try:
        with pytest.raises(ValueError, match=r"ShapedReward must wrap the env inside TextActions"):
            ShapedReward(TextActions(base))
        with pytest.raises(ValueError, match="public must be a finite number >= 0, got -1"):
            ShapedReward(base, public=-1)
        with pytest.raises(ValueError, match="fallback must be a finite number >= 0, got inf"):
            ShapedReward(base, fallback=float("inf"))
        with pytest.raises(ValueError, match=r"test_command '\(' is not a valid regular expression"):
            ShapedReward(base, test_command="(")
        assert ShapedReward(base).spec.additional_wrappers[-1].kwargs == {
            "constraint": 0.05, "public": 0.5, "fallback": 0.02, "test_command": TEST_COMMAND
        }  # fmt: skip
    finally:
        base.close()


def test_doctests_pass():
    assert doctest.testmod(icae_env.wrappers.shaped_reward, raise_on_error=False).failed == 0
