from __future__ import annotations

import weakref

import pytest

pytest.importorskip(
    "openenv", reason='the OpenEnv environment needs the openenv extra: pip install "icae-env[openenv]"'
)

import icae_env  # noqa: E402
from icae_env.errors import ArgumentError, ResetNeeded  # noqa: E402
from icae_env.serve import IcaeAction, IcaeOpenEnv  # noqa: E402
from icae_env.serve.environment import NoEpisode, SessionClosed  # noqa: E402


@pytest.fixture
def build_env():
    env = IcaeOpenEnv("icae/ProjectBuild-v0", {"task": "builtin/unidiff", "max_steps": 3})
    yield env
    env.close()


def test_reset_and_steps_match_the_env_in_process(build_env):
    actions = [{"tool": "bash", "command": "echo hi > f && cat f"}, {"tool": "view", "path": "f"}]
    direct = icae_env.make("icae/ProjectBuild-v0", task="builtin/unidiff", max_steps=3)
    try:
        obs, info = direct.reset(seed=0)
        first = build_env.reset(seed=0, episode_id="e1")
        assert (first.output, first.source, first.step, first.reward, first.done) == (
            obs["output"], obs["source"], 0, None, False
        )  # fmt: skip
        for action in actions:
            obs, reward, terminated, truncated, info = direct.step(action)
            served = build_env.step(IcaeAction.model_validate(action))
            assert (served.output, served.exit_code, served.reward, served.done) == (
                obs["output"], obs["exit_code"], reward, terminated or truncated
            )  # fmt: skip
            assert served.info["counters"] == info["counters"]
    finally:
        direct.close()
    state = build_env.state
    assert (state.episode_id, state.task, state.level, state.step_count, state.done) == (
        "e1",
        "unidiff",
        "L1",
        2,
        False,
    )


def test_reset_takes_task_and_level_only(build_env):
    assert build_env.reset(seed=1, task="builtin/cron-next", level="L2").info["task"] == "cron-next"
    assert build_env.state.level == "L2"
    with pytest.raises(ArgumentError, match=r"unknown reset argument\(s\) \['budget'\]"):
        build_env.reset(budget=3)


def test_step_before_reset_and_after_the_end(build_env):
    with pytest.raises(NoEpisode, match="send reset first"):
        build_env.step(IcaeAction(tool="submit"))
    build_env.reset(seed=0)
    assert build_env.step(IcaeAction(tool="submit")).terminated
    with pytest.raises(ResetNeeded, match="the episode is over"):
        build_env.step(IcaeAction(tool="submit"))


def test_a_closed_session_says_why_and_its_sandbox_is_gone(build_env):
    build_env.reset(seed=0)
    workspace = build_env._env.unwrapped.workspace
    assert workspace.is_dir() and build_env.idle_s() >= 0
    build_env.expire("idle for more than 5 s")
    build_env.close()
    build_env.close()
    assert not workspace.exists()
    with pytest.raises(SessionClosed, match=r"session is closed \(idle for more than 5 s\)"):
        build_env.reset(seed=0)


def test_clarify_takes_text_actions():
    env = IcaeOpenEnv("icae/Clarify-v0", {"task": "builtin/dep-resolver", "budget": 3})
    try:
        env.reset(seed=0)
        reply = env.step(IcaeAction(text="how are cycles reported?"))
        assert (reply.info["recovered"], round(reply.reward, 2), reply.questions_left, reply.source) == (
            ["C004"], 0.08, 2, 1
        )  # fmt: skip
        assert env.step(IcaeAction(text="")).terminated
    finally:
        env.close()


def test_live_sessions_register_themselves():
    live: weakref.WeakSet[IcaeOpenEnv] = weakref.WeakSet()
    env = IcaeOpenEnv("icae/Clarify-v0", live=live)
    assert list(live) == [env]
    assert env.get_metadata().name == "icae/Clarify-v0"
