"""SkyRL-gym adapter, on the real ``skyrl_gym``: envs stepped from threads as SkyRL's generator does, turn limit.

``skyrl_rollouts`` calls the envs exactly as ``SkyRLGymGenerator.agent_loop`` (skyrl/train/generators/
skyrl_gym_generator.py) does: ``skyrl_gym.make(env_class, env_config=..., extras=row)`` on the event loop, then
``init``, every ``step`` and ``close`` through ``loop.run_in_executor`` on a ``ThreadPoolExecutor`` named
``skyrl-gym-env-``, all trajectories gathered at once, ``get_metrics`` before ``close``. The model is a script of
texts. (The generator itself, in the ``skyrl`` distribution, needs Python >= 3.12 to import.)
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import skyrl_gym
from omegaconf import OmegaConf
from packs import ADAPTER, TEST_SH

import icae_env
from icae_env.errors import ArgumentError, ConfigError, ResetNeeded, UnknownNameError
from icae_env.sandbox import available_backends
from icae_env.sandbox.session_box import TEMP_PREFIX
from icae_env.trainers.skyrl import ENTRY_POINT, IcaeTextEnv, register_skyrl_env
from icae_env.wrappers import INVALID_ACTION

BUILD, CLARIFY = "icae/ProjectBuild-v0", "icae/Clarify-v0"
PARTIAL = 'import json, sys\nt = json.load(sys.stdin)["text"]\nprint(t.upper() if len(t) < 3 else t)\n'


def call(tool: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    """A JSON tool call as the model writes it, and the action dict a plain env gets for it."""
    return json.dumps({"name": tool, "arguments": arguments}), {"tool": tool, **arguments}


def ask(question: str) -> tuple[str, dict[str, Any]]:
    return f"Let me ask.\n<ask>{question}</ask>", {"tool": "ask", "question": question}


SUBMIT = ("Done.\n<submit/>", {"tool": "submit"})
NO_CALL = ("I think the project is finished now.", dict(INVALID_ACTION))


@dataclass
class Trajectory:
    env_class: str
    extras: dict[str, Any]
    script: list[tuple[str, dict[str, Any]]]
    rewards: list[float] = field(default_factory=list)
    done: bool = False
    metrics: dict[str, Any] = field(default_factory=dict)
    chat: list[dict[str, Any]] = field(default_factory=list)
    spans: list[tuple[float, float]] = field(default_factory=list)
    threads: set[str] = field(default_factory=set)


def _on_thread(fn, *args):
    started = time.monotonic()
    result = fn(*args)
    return result, threading.current_thread().name, started, time.monotonic()


async def _agent_loop(executor: ThreadPoolExecutor, run: Trajectory, env_config: Any) -> None:
    loop = asyncio.get_running_loop()
    env = skyrl_gym.make(run.env_class, env_config=env_config, extras=dict(run.extras))
    run.chat, *_ = (await loop.run_in_executor(executor, _on_thread, env.init, []))[0]
    for text, _ in run.script:
        output, thread, started, ended = await loop.run_in_executor(executor, _on_thread, env.step, text)
        run.threads.add(thread)
        run.spans.append((started, ended))
        run.rewards.append(output["reward"])
        run.chat += [{"role": "assistant", "content": text}, *output["observations"]]
        if output["done"]:
            run.done = True
            break
    run.metrics = env.get_metrics()
    await loop.run_in_executor(executor, env.close)


def skyrl_rollouts(runs: list[Trajectory], env_config: Any = None) -> list[Trajectory]:
    async def main() -> None:
        with ThreadPoolExecutor(max_workers=len(runs), thread_name_prefix="skyrl-gym-env-") as executor:
            await asyncio.gather(*(_agent_loop(executor, run, env_config or {}) for run in runs))

    asyncio.run(main())
    return runs


def in_process(run: Trajectory) -> tuple[list[float], bool]:
    """The same actions on a plain icae env, in this thread."""
    kwargs = {k: run.extras[k] for k in ("task", "level") if k in run.extras}
    env = icae_env.make(run.env_class, max_steps=run.extras["max_turns"], **kwargs)
    rewards, done = [], False
    try:
        env.reset(seed=run.extras.get("seed"))
        for _, action in run.script:
            _, reward, terminated, truncated, _ = env.step(action)
            rewards.append(float(reward))
            if terminated or truncated:
                done = True
                break
    finally:
        env.close()
    return rewards, done


def _temp_sandboxes() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}{os.getpid()}-*"))


def _overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> bool:
    return any(s1 < e2 and s2 < e1 for s1, e1 in a for s2, e2 in b)


def _four(mini_pack: Path) -> list[Trajectory]:
    pack = str(mini_pack)
    golden = [
        call("write_file", path="adapter.py", content=ADAPTER),
        call("write_file", path="rcb_tests/test.sh", content=TEST_SH),
    ]
    partial = [call("write_file", path="adapter.py", content=PARTIAL), golden[1]]
    return [
        Trajectory(
            BUILD, {"task": pack, "seed": 0, "max_turns": 8}, [ask("what is the output format"), *golden, SUBMIT]
        ),
        Trajectory(
            BUILD, {"task": pack, "seed": 1, "max_turns": 8}, [*partial, NO_CALL, call("bash", command="ls"), SUBMIT]
        ),
        Trajectory(
            CLARIFY,
            {"task": "builtin/dep-resolver", "level": "L2", "seed": 2, "max_turns": 6},
            [ask("how are cycles reported?"), NO_CALL, ask("what is the weather like"), SUBMIT],
        ),
        Trajectory(  # reaches the turn limit without stopping
            CLARIFY,
            {"extra_info": {"task": "builtin/unidiff", "seed": 3}, "max_turns": 3, "data_source": "icae"},
            [
                ask("what does the input json look like"),
                call("bash", command="ls"),
                ask("what do hunk headers look like"),
            ],
        ),
    ]


def test_four_envs_stepped_from_threads_give_the_in_process_rewards(mini_pack: Path):
    before = _temp_sandboxes()
    runs = skyrl_rollouts(_four(mini_pack))
    for run in runs:
        run.extras.update(run.extras.pop("extra_info", {}))
        expected, done = in_process(run)
        assert run.done and done and len(run.rewards) == len(run.script)
        assert run.rewards == pytest.approx(expected, abs=1e-9)
        assert run.metrics["return"] == pytest.approx(sum(expected)) and run.metrics["turns"] == len(run.script)
    build_ok, build_partial, clarify, limited = runs
    assert build_ok.rewards[-1] == pytest.approx(1.2) and build_ok.metrics["score/overall"] == 1.0
    assert 0.0 < build_partial.rewards[-1] < 1.0 and build_partial.metrics["action_errors"] == 1
    assert clarify.metrics["submitted"] and clarify.rewards[1] == pytest.approx(-0.02)
    assert limited.metrics["auto_scored"] and not limited.metrics["submitted"]
    assert all(m["role"] in ("system", "user", "assistant") for r in runs for m in r.chat)
    assert "ask(question)" in clarify.chat[0]["content"] and "bash(" not in clarify.chat[0]["content"]
    assert len(set().union(*(r.threads for r in runs))) > 1  # steps ran on several pool threads ...
    assert _overlap(build_ok.spans, build_partial.spans)  # ... and the two scoring steps at the same time
    assert _temp_sandboxes() - before == set()


def test_the_turn_limit_scores_the_workspace_as_it_is(mini_pack: Path):
    script = [
        call("write_file", path="adapter.py", content=ADAPTER),
        call("write_file", path="rcb_tests/test.sh", content=TEST_SH),
        call("bash", command="ls"),
    ]
    [run] = skyrl_rollouts([Trajectory(BUILD, {"task": str(mini_pack), "max_turns": 3}, script)])
    assert run.done and run.rewards[:2] == [0.0, 0.0]
    assert run.rewards[-1] == pytest.approx(1.0)  # the delivered golden, scored without submit
    assert run.metrics["auto_scored"] and not run.metrics["submitted"] and run.metrics["score/public"] == 1.0
    direct = Trajectory(BUILD, {"task": str(mini_pack), "max_turns": 200}, [*script, SUBMIT])
    assert in_process(direct)[0][-1] == pytest.approx(run.rewards[-1])


def test_an_empty_workspace_at_the_turn_limit_scores_zero(mini_pack: Path):
    [run] = skyrl_rollouts([Trajectory(BUILD, {"task": str(mini_pack), "max_turns": 1}, [call("bash", command="ls")])])
    assert run.done and run.rewards == [0.0] and run.metrics["auto_scored"] and run.metrics["score/overall"] == 0.0


def test_close_leaves_no_sandbox(mini_pack: Path):
    env = skyrl_gym.make(BUILD, env_config={}, extras={"task": str(mini_pack), "max_turns": 4})
    env.init([])
    env.step(call("bash", command="sleep 30 &")[0])
    root = env._env.unwrapped.workspace.parent
    assert root.exists()
    env.close()
    assert not root.exists()
    env.close()  # twice is fine
    with pytest.raises(ResetNeeded, match="init"):
        env.step("<submit/>")


@pytest.mark.docker
@pytest.mark.skipif("docker" not in available_backends(), reason="no Docker engine or base image here")
def test_close_removes_the_docker_container(mini_pack: Path):
    from icae_env.sandbox.docker import flush_cleanup

    register_skyrl_env(BUILD, "icae/ProjectBuild-docker-v0", sandbox="docker")
    env = skyrl_gym.make("icae/ProjectBuild-docker-v0", env_config={}, extras={"task": str(mini_pack), "max_turns": 2})
    env.init([])
    assert "ok" in env.step("```bash\necho ok\n```")["observations"][0]["content"]
    container = env._env.unwrapped._state.sandbox.container.id
    env.close()
    flush_cleanup()
    assert subprocess.run(["docker", "inspect", container], capture_output=True).returncode != 0


def test_every_icae_id_is_registered_with_skyrl_gym():
    for env_id in (BUILD, CLARIFY, "icae/Revision-v0"):
        assert skyrl_gym.registry[env_id].entry_point == ENTRY_POINT
        assert skyrl_gym.registry[env_id].kwargs == {"env_id": env_id}
    assert isinstance(skyrl_gym.make(CLARIFY, env_config={}, extras={}), IcaeTextEnv)


def test_config_precedence_prompt_and_metrics():
    register_skyrl_env(CLARIFY, "icae/Clarify-test-v0", task="builtin/unidiff", budget=2, system_prompt="Ask well.")
    config = OmegaConf.create({"task": "builtin/cron-next", "question_cost": 0.5})
    env = skyrl_gym.make("icae/Clarify-test-v0", env_config=config, extras={"task": "builtin/dep-resolver"})
    assert env.max_turns == 64  # no max_turns in the row: the env's max_steps
    messages, meta = env.init([{"role": "user", "content": "Be brief."}])
    assert meta["task"] == "dep-resolver" and [m["role"] for m in messages] == ["system", "user", "user"]
    assert messages[0]["content"] == "Ask well." and messages[1]["content"] == "Be brief."
    assert env.step("<ask>what is the weather like</ask>")["reward"] == pytest.approx(-0.5)
    out = env.step("<ask>what else?</ask>")
    assert out["done"] and out["observations"] == []  # the budget of 2 is used up
    env.close()
    env = IcaeTextEnv(extras={"max_turns": 2}, env_id=CLARIFY)
    own, _ = env.init([{"role": "system", "content": "Mine."}])
    env.close()
    assert [m["content"] for m in own[:1]] == ["Mine."] and len(own) == 2


def test_bad_arguments_are_typed_errors():
    with pytest.raises(UnknownNameError, match="did you mean 'icae/Clarify-v0'"):
        IcaeTextEnv(env_id="icae/Clarfy-v0")
    with pytest.raises(ConfigError, match="turn limit"):
        IcaeTextEnv(env_config={"score_on_truncation": False})
    with pytest.raises(ConfigError, match="env_config must be a mapping"):
        IcaeTextEnv(env_config=["sandbox"])
    with pytest.raises(ArgumentError, match="max_turns must be an int >= 1"):
        IcaeTextEnv(extras={"max_turns": 0})
    with pytest.raises(ArgumentError, match="taken by 'skyrl_gym.envs.gsm8k.env:GSM8kEnv'"):
        register_skyrl_env(CLARIFY, "gsm8k")
    with pytest.raises(ResetNeeded, match="call init"):
        IcaeTextEnv(env_id=CLARIFY).step("<submit/>")


def test_a_missing_skyrl_gym_names_the_extra():
    code = (
        "import sys; sys.modules['skyrl_gym'] = None\n"
        "try:\n    import icae_env.trainers.skyrl\n"
        "except ImportError as e:\n    print(type(e).__name__, e)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[2])
    assert (
        result.stdout.strip()
        == 'DependencyNotInstalled skyrl-gym is not installed; run `pip install "icae-env[skyrl]"`'
    )
