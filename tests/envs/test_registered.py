"""Every registered ``icae/`` environment is a well-behaved Gymnasium env: checker, determinism, spec, lifecycle."""

from __future__ import annotations

import os
import pickle
import secrets
import time
import warnings
from pathlib import Path

import gymnasium
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils.env_checker import check_env, data_equivalence
from packs import write_pack

from icae_env.errors import ResetNeeded
from icae_env.sandbox import available_backends
from icae_env.sandbox.local import bwrap_available
from icae_env.tasks import list_tasks, load_task

ALL_SPECS = [spec for spec in gymnasium.registry.values() if spec.id.startswith("icae/")]
# Families over project-building tasks (built-in ``builtin/...`` tasks and packs); icae/Revision-v0 runs revision
# tasks and has the same lifecycle tests in tests/envs/test_revision.py.
SPECS = [spec for spec in ALL_SPECS if str(spec.kwargs.get("task", "")).startswith("builtin/")]
SPEC_IDS = [spec.id for spec in SPECS]
# Families with a sandbox (tool actions, workspace); icae/Clarify-v0 has its own check_env tests.
SANDBOX_SPECS = [spec for spec in SPECS if "sandbox" in spec.kwargs]
SANDBOX_SPEC_IDS = [spec.id for spec in SANDBOX_SPECS]
TASKS = list_tasks()
BWRAP = {"isolation": "bwrap"}


def _make(spec: EnvSpec, *, isolated: bool = False, **kwargs) -> gymnasium.Env:
    """``gymnasium.make(spec.id, **kwargs)``; skip families whose sandbox backend is not available here.

    ``isolated`` asks a local sandbox for bubblewrap, which a reproducible observation needs (see
    test_check_env_without_isolation).
    """
    backend = spec.kwargs.get("sandbox", "local")
    if backend != "local" and backend not in available_backends():
        pytest.skip(f"sandbox backend {backend!r} of {spec.id} is not available here")
    if backend == "local" and isolated:
        if not bwrap_available():
            pytest.skip("bubblewrap is not installed; without it the observation shows a host temp path")
        kwargs.setdefault("sandbox_options", BWRAP)
    return gymnasium.make(spec.id, **kwargs)


def _task_params() -> list:
    """The first built-in task runs in every run; the rest are marked slow."""
    return [pytest.param(name, id=name, marks=() if i == 0 else pytest.mark.slow) for i, name in enumerate(TASKS)]


@pytest.fixture(scope="module")
def mini_pack_dir(tmp_path_factory) -> Path:
    return write_pack(tmp_path_factory.mktemp("packs"))


def _golden_writes(pack: Path) -> list[dict]:
    golden = load_task(pack).golden_dir
    assert golden is not None
    return [
        {"tool": "write_file", "path": p.relative_to(golden).as_posix(), "content": p.read_text()}
        for p in sorted(golden.rglob("*"))
        if p.is_file()
    ]


def _running(argv: list[str], patience_s: float = 10.0) -> int:
    """How many host processes run exactly ``argv``, once SIGKILLed ones had a moment to be reaped."""
    wanted = "\0".join(argv).encode() + b"\0"

    def count() -> int:
        found = 0
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                found += Path(f"/proc/{pid}/cmdline").read_bytes() == wanted
            except OSError:
                continue
        return found

    deadline = time.monotonic() + patience_s
    while count() and time.monotonic() < deadline:
        time.sleep(0.05)
    return count()


def test_the_registry_has_icae_envs():
    assert "icae/ProjectBuild-v0" in SPEC_IDS
    assert {s.id for s in ALL_SPECS} >= {"icae/ProjectBuild-v0", "icae/Clarify-v0", "icae/Revision-v0"}
    assert TASKS, "the built-in suite must not be empty"


@pytest.mark.parametrize("task", _task_params())
@pytest.mark.parametrize("spec", SANDBOX_SPECS, ids=SANDBOX_SPEC_IDS)
def test_check_env(spec: EnvSpec, task: str):
    env = _make(spec, isolated=True, task=task)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a checker warning is a failure too
            check_env(env.unwrapped)
    finally:
        env.close()


def test_check_env_without_isolation():
    env = gymnasium.make("icae/ProjectBuild-v0", sandbox_options={"isolation": "none"})
    try:
        check_env(env.unwrapped)
    finally:
        env.close()


def _rollout(spec: EnvSpec, pack: Path, seed: int) -> list[tuple]:
    """Run a fixed action script; return (obs, reward, terminated, truncated, info-without-durations) per step."""
    actions = [
        {"tool": "bash", "command": "echo start; ls -a"},
        {"tool": "ask", "question": "what is the output format"},
        {"tool": "ask", "question": "what about the weather"},
        *_golden_writes(pack),
        {"tool": "str_replace", "path": "adapter.py", "old": "import json, sys", "new": "import json, sys  # loud"},
        {"tool": "view", "path": "adapter.py", "range": [1, 3]},
        "not json",
        {"tool": "bash", "command": 'python3 adapter.py <<< \'{"text": "hi"}\''},
        {"tool": "submit"},
    ]
    env = _make(spec, isolated=True, task=[str(pack), "builtin/config-lint"])
    try:
        obs, info = env.reset(seed=seed)
        records: list[tuple] = [(obs, 0.0, False, False, info)]
        for action in actions:
            obs, reward, terminated, truncated, info = env.step(action)
            if info.get("score"):
                info["score"].pop("duration_s")
            records.append((obs, reward, terminated, truncated, info))
            if terminated or truncated:
                break
    finally:
        env.close()
    return records


@pytest.mark.parametrize("spec", SANDBOX_SPECS, ids=SANDBOX_SPEC_IDS)
def test_same_seed_same_actions_same_episode(spec: EnvSpec, mini_pack_dir: Path):
    first = _rollout(spec, mini_pack_dir, seed=1)  # seed 1 draws mini-echo from the two tasks
    second = _rollout(spec, mini_pack_dir, seed=1)
    assert len(first) == len(second)
    assert first[0][4]["task"] == "mini-echo"
    assert first[-1][2] is True, "the script ends with submit"
    assert first[-1][4]["score"]["overall"] == 1.0
    for step, (a, b) in enumerate(zip(first, second, strict=True)):
        assert data_equivalence(a[0], b[0], exact=True), f"observations differ at step {step}"
        assert a[1:4] == b[1:4], f"reward/terminated/truncated differ at step {step}"
        assert a[4] == b[4], f"info differs at step {step}"


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_spec_is_serialisable(spec: EnvSpec, mini_pack_dir: Path):
    assert isinstance(spec.entry_point, str) and ":" in spec.entry_point
    assert EnvSpec.from_json(spec.to_json()) == spec
    assert pickle.loads(pickle.dumps(spec)) == spec
    env = _make(spec, task=str(mini_pack_dir), level="L2", budget=3)
    try:
        made = env.spec
        assert made is not None and made.kwargs["task"] == str(mini_pack_dir)
        rebuilt = EnvSpec.from_json(made.to_json())
        assert rebuilt == made
        again = gymnasium.make(rebuilt)
        try:
            _, info = again.reset(seed=0)
            assert (info["task"], info["level"]) == ("mini-echo", "L2")
            assert again.unwrapped.budget == 3
        finally:
            again.close()
    finally:
        env.close()


@pytest.mark.parametrize("spec", SANDBOX_SPECS, ids=SANDBOX_SPEC_IDS)
def test_close_twice_is_safe(spec: EnvSpec, mini_pack_dir: Path):
    never_reset = _make(spec, task=str(mini_pack_dir))
    never_reset.close()
    never_reset.close()
    env = _make(spec, task=str(mini_pack_dir))
    env.reset(seed=0)
    argv = ["sleep", f"60.{secrets.randbelow(10**6):06d}"]
    obs, *_ = env.step({"tool": "bash", "command": f"{' '.join(argv)} > /dev/null 2>&1 & echo bg"})
    assert obs["output"] == "bg\n"
    workspace = env.unwrapped.workspace
    assert workspace.is_dir()
    env.close()
    assert not workspace.exists(), "close() must remove the workspace"
    assert _running(argv) == 0, "close() must stop the agent's processes"
    env.close()
    with pytest.raises(ResetNeeded, match=r"call reset\(\) before step\(\)"):
        env.unwrapped.step({"tool": "bash", "command": "true"})


@pytest.mark.parametrize("spec", SANDBOX_SPECS, ids=SANDBOX_SPEC_IDS)
def test_step_before_reset_raises(spec: EnvSpec, mini_pack_dir: Path):
    env = _make(spec, task=str(mini_pack_dir))
    try:
        with pytest.raises(ResetNeeded, match=r"call reset\(\) before step\(\)"):
            env.unwrapped.step({"tool": "bash", "command": "true"})
        with pytest.raises(ResetNeeded, match=r"call reset\(\) first"):
            env.unwrapped.workspace  # noqa: B018
        # Through gymnasium.make too: the env's own error, which is also a Gymnasium ResetNeeded.
        with pytest.raises(ResetNeeded, match=r"call reset\(\) before step\(\)"):
            env.step({"tool": "bash", "command": "true"})
        with pytest.raises(gymnasium.error.ResetNeeded):
            env.step({"tool": "bash", "command": "true"})
    finally:
        env.close()


@pytest.mark.parametrize("spec", SANDBOX_SPECS, ids=SANDBOX_SPEC_IDS)
def test_step_after_the_episode_ended_raises(spec: EnvSpec, mini_pack_dir: Path):
    env = _make(spec, task=str(mini_pack_dir))
    try:
        env.reset(seed=0)
        _, _, terminated, truncated, _ = env.step({"tool": "submit"})
        assert terminated and not truncated
        with pytest.raises(ResetNeeded, match=r"the episode is over; call reset\(\)"):
            env.step({"tool": "bash", "command": "true"})
        env.reset()
        obs, *_ = env.step({"tool": "bash", "command": "echo again"})
        assert obs["output"] == "again\n"
    finally:
        env.close()
