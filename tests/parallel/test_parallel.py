"""Parallel rollouts on Ray: a cluster started with `ray start --head`, serial/Ray equality, worker death, RayVectorEnv.

The cluster comes from the session fixture ``ray_cluster`` (tests/ray_cluster.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from icae_env.baselines.oracle_agent import OracleAgent
from icae_env.baselines.random_agent import RandomAgent
from icae_env.errors import DependencyNotInstalled, ResetNeeded
from icae_env.run import run_suite

HAS_RAY = importlib.util.find_spec("ray") is not None
requires_ray = pytest.mark.skipif(not HAS_RAY, reason="ray is not installed (the ray extra)")
TASKS = ["builtin/token-bucket", "builtin/unidiff", "builtin/dep-resolver"]


def _comparable(results):
    return [r.model_dump(exclude={"seconds"}) for r in results]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_import_needs_no_ray_and_use_names_the_extra(monkeypatch):
    code = "import sys, icae_env, icae_env.parallel; assert 'ray' not in sys.modules, 'ray imported'"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    from icae_env.parallel import RayVectorEnv
    from icae_env.run import rollout, run_suite

    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    for call in (
        lambda: rollout(OracleAgent, TASKS[:1]),
        lambda: run_suite(OracleAgent, TASKS[:1], workers=2),
        lambda: RayVectorEnv(1),
    ):
        with pytest.raises(DependencyNotInstalled, match=r'pip install "icae-env\[ray\]"'):
            call()


@pytest.mark.ray
@requires_ray
def test_rollout_on_a_cluster_started_with_ray_start(ray_cluster, tmp_path):
    import ray

    from icae_env.run import rollout

    seen = []
    report = rollout(
        OracleAgent,
        TASKS[:2],
        num_workers=2,
        address="auto",
        out_dir=tmp_path,
        trajectories=True,
        progress=False,
        on_result=seen.append,
    )
    assert [(r.task, r.overall, r.error) for r in report.results] == [
        ("token-bucket", 1.0, None),
        ("unidiff", 1.0, None),
    ]
    assert sorted(r.task for r in seen) == ["token-bucket", "unidiff"] and report.infra_errors == []
    assert sorted(line["task"] for line in _jsonl(tmp_path / "results.jsonl")) == ["token-bucket", "unidiff"]
    assert "2 Ray workers" in (tmp_path / "summary.md").read_text()
    trajectory = _jsonl(tmp_path / "trajectories" / "unidiff-L1-0.jsonl")
    assert trajectory[0]["type"] == "reset" and trajectory[-1]["terminated"] is True
    assert not ray.is_initialized()  # joined, used and left: the cluster keeps running for the next tests


@pytest.mark.ray
@requires_ray
def test_same_seeds_same_results_serially_and_on_ray(ray_cluster):
    from icae_env.run import rollout

    def random_factory():
        return RandomAgent(3)

    for factory, tasks, seeds, address in (
        (OracleAgent, TASKS[:2], (0,), ray_cluster),
        (random_factory, TASKS, (0, 1, 2), os.environ["ICAE_TEST_RAY_CLIENT"]),  # through the Ray client server
    ):
        serial = run_suite(factory, tasks, ("L1",), seeds, progress=False)
        parallel = rollout(factory, tasks, ("L1",), seeds, num_workers=2, address=address, progress=False)
        assert _comparable(parallel.results) == _comparable(serial)
        assert all(r.error is None for r in serial) and parallel.infra_errors == []
    assert [r.overall for r in serial] == [0.0] * 9


def _stalling_oracle(pid_file: Path):
    """An oracle that, on the first attempt of ``pid_file.stem``'s task, records its pid and stalls mid-episode."""

    class StallOnce(OracleAgent):
        def reset(self, observation, info, seed, *, solution):
            super().reset(observation, info, seed, solution=solution)
            self.stall = info["task"] == pid_file.stem and not pid_file.exists()
            if self.stall:
                pid_file.write_text(str(os.getpid()))

        def act(self, observation, info):
            if self.stall and observation["step"] == 2:
                time.sleep(120)  # killed long before this returns
            return super().act(observation, info)

    return StallOnce


@pytest.mark.ray
@requires_ray
def test_killed_worker_episode_is_retried_and_nothing_is_lost(ray_cluster, tmp_path):
    from icae_env.run import rollout

    pid_file = tmp_path / "token-bucket"  # the first episode handed out stalls on its first attempt
    killed = {}

    def kill_the_stalled_worker(result):
        if not killed:  # the first result is unidiff's: token-bucket is stalled mid-episode in the other worker
            killed.update(task=result.task, pid=int(pid_file.read_text()))
            os.kill(killed["pid"], signal.SIGKILL)

    out = tmp_path / "run"
    report = rollout(
        _stalling_oracle(pid_file),
        TASKS,
        num_workers=2,
        address=ray_cluster,
        out_dir=out,
        progress=False,
        on_result=kill_the_stalled_worker,
    )
    assert killed["task"] == "unidiff"
    assert [(r.task, r.overall, r.error) for r in report.results] == [(t.split("/")[1], 1.0, None) for t in TASKS]
    [infra] = report.infra_errors
    assert (infra.task, infra.attempt, infra.kind, infra.retried) == ("builtin/token-bucket", 1, "worker_died", True)
    assert infra.worker_pid == killed["pid"] and report.retries == 1
    lines = _jsonl(out / "results.jsonl")
    assert lines[0]["task"] == "unidiff"  # finished before the kill, still there
    assert sorted(line["task"] for line in lines) == sorted(t.split("/")[1] for t in TASKS)
    assert len(_jsonl(out / "infra_errors.jsonl")) == 1
    assert "Infrastructure errors: 1 (1 retried)" in (out / "summary.md").read_text()


def _hanging_oracle(pid_file: Path):
    """An oracle that hangs mid-episode, on every attempt, on ``pid_file.stem``'s task (recording its pid)."""

    class Hang(OracleAgent):
        def reset(self, observation, info, seed, *, solution):
            super().reset(observation, info, seed, solution=solution)
            self.hang = info["task"] == pid_file.stem

        def act(self, observation, info):
            if self.hang and observation["step"] == 2:
                pid_file.write_text(str(os.getpid()))
                time.sleep(600)
            return super().act(observation, info)

    return Hang


def _gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.ray
@requires_ray
def test_episode_timeout_kills_the_hung_worker_and_the_rest_finish(ray_cluster, tmp_path):
    from icae_env.run import INFRA_PREFIX, rollout

    pid_file = tmp_path / "token-bucket"
    out = tmp_path / "run"
    started = time.monotonic()
    report = rollout(
        _hanging_oracle(pid_file),
        TASKS,
        num_workers=2,
        address=ray_cluster,
        out_dir=out,
        progress=False,
        episode_timeout_s=30,
    )
    assert time.monotonic() - started < 300  # not the 600 s hang
    hung, *others = report.results
    assert hung.task == "token-bucket" and hung.error.startswith(INFRA_PREFIX) and "after 30 s" in hung.error
    assert [(r.overall, r.error) for r in others] == [(1.0, None), (1.0, None)]
    [infra] = report.infra_errors
    assert (infra.kind, infra.retried, infra.worker_pid) == ("episode_timeout", False, int(pid_file.read_text()))
    assert _gone(infra.worker_pid, within_s=30), "the hung worker process is still alive"
    assert sorted(line["task"] for line in _jsonl(out / "results.jsonl")) == sorted(t.split("/")[1] for t in TASKS)
    assert [line["kind"] for line in _jsonl(out / "infra_errors.jsonl")] == ["episode_timeout"]


@pytest.mark.parametrize("bad", [0, -1.5, float("nan")])
def test_episode_timeout_must_be_positive(bad):
    from icae_env.run import rollout

    with pytest.raises(ValueError, match="episode_timeout_s"):
        rollout(RandomAgent, TASKS[:1], episode_timeout_s=bad)


def test_cli_episode_timeout_needs_workers(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "icae_env.cli",
            "run",
            "--agent",
            "random",
            "--tasks",
            "builtin/unidiff",
            "--episode-timeout",
            "5",
            "--out",
            str(tmp_path / "run"),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "--episode-timeout needs --workers" in result.stderr


def _flaky_random():
    """A random agent whose process dies on every attempt of seed 1 and which raises on seed 2."""

    class Flaky(RandomAgent):
        def reset(self, observation, info, seed):
            super().reset(observation, info, seed)
            self.seed = seed

        def act(self, observation, info):
            if self.seed == 1:
                os.kill(os.getpid(), signal.SIGKILL)
            if self.seed == 2:
                raise RuntimeError("agent bug")
            return super().act(observation, info)

    return lambda: Flaky(2)


@pytest.mark.ray
@requires_ray
def test_infrastructure_errors_are_kept_apart_from_agent_failures(ray_cluster, tmp_path):
    from icae_env.run import INFRA_PREFIX, rollout

    report = rollout(
        _flaky_random(),
        TASKS[:1],
        seeds=(0, 1, 2),
        address=ray_cluster,
        out_dir=tmp_path,
        max_retries=1,
        progress=False,
    )
    ok, lost, failed = report.results
    assert ok.error is None and ok.steps == 3
    assert lost.error.startswith(INFRA_PREFIX) and lost.seed == 1
    assert failed.error == "RuntimeError: agent bug" and report.agent_failures == [failed]
    assert [(e.seed, e.attempt, e.retried) for e in report.infra_errors] == [(1, 1, True), (1, 2, False)]
    assert [line["seed"] for line in _jsonl(tmp_path / "infra_errors.jsonl")] == [1, 1]
    assert sorted(line["seed"] for line in _jsonl(tmp_path / "results.jsonl")) == [0, 1, 2]


@pytest.mark.ray
@requires_ray
def test_vector_env_ragged_steps_autoreset_and_fractional_cpus(ray_cluster, mini_pack):
    import ray

    from icae_env.parallel import RayVectorEnv, VectorStepError

    kwargs = {"task": str(mini_pack), "max_steps": 3, "score_on_truncation": False}
    echo = {"tool": "bash", "command": "echo hi"}
    with RayVectorEnv(3, kwargs, num_cpus_per_env=0.5, address=ray_cluster) as venv:
        deadline = time.monotonic() + 20
        while ray.available_resources().get("CPU") != 0.5 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert ray.available_resources().get("CPU") == 0.5  # 3 x 0.5 of the cluster's 2 CPUs
        observations, infos = venv.reset(seed=0)
        assert [o["step"] for o in observations] == [0, 0, 0] and infos[0]["task"] == "mini-echo"
        first = venv.step({2: echo, 0: echo})
        assert [(s.env_id, s.observation["output"], s.done) for s in first] == [(0, "hi\n", False), (2, "hi\n", False)]
        venv.step({0: echo})
        [ended] = venv.step({0: echo})  # env 0's third step: truncated, and a new episode starts at once
        assert ended.truncated and not ended.terminated and ended.final_observation["step"] == 3
        assert ended.observation["step"] == 0 and ended.final_info["tool"] == "bash" and ended.info["level"] == "L1"
        [submitted] = venv.step({1: {"tool": "submit"}})  # env 1: a one-step episode, scored
        assert submitted.terminated and submitted.final_info["score"] is not None
        assert [s.observation["step"] for s in venv.step({0: echo, 1: echo, 2: echo})] == [1, 1, 2]
        venv.step_async({2: echo})
        assert venv.pending == (2,) and [s.env_id for s in venv.step({0: echo})] == [0]
        assert [s.observation["step"] for s in venv.step_wait()] == [0]  # env 2 reached max_steps and restarted
        os.kill(venv.pids[1], signal.SIGKILL)  # env 1's actor dies: env 0's step still comes back
        with pytest.raises(VectorStepError) as died:
            venv.step({0: echo, 1: echo})
        assert [s.env_id for s in died.value.completed] == [0] and list(died.value.failed) == [1]
        assert venv.needs_reset == (1,)
        observations, _ = venv.reset(env_ids=[1])  # a fresh actor
        assert observations[0]["step"] == 0 and [s.observation["step"] for s in venv.step({1: echo})] == [1]

    with RayVectorEnv(2, kwargs, num_cpus_per_env=0.25, autoreset=False, address=ray_cluster) as venv:
        with pytest.raises(ResetNeeded):
            venv.step({0: echo})
        venv.reset(seed=[5, 6])
        [done] = venv.step({1: {"tool": "submit"}})
        assert done.terminated and done.final_observation is None and venv.needs_reset == (1,)
        with pytest.raises(ResetNeeded):
            venv.step({1: echo})
        venv.reset(env_ids=[1])
        assert [s.observation["step"] for s in venv.step({0: echo, 1: echo})] == [1, 1]


LOCAL_RUN = """
import json, sys
import ray
from icae_env.baselines.random_agent import RandomAgent
from icae_env.run import run_suite
results = run_suite(lambda: RandomAgent(2), sys.argv[1:3], ("L1",), (0, 1), out_dir=sys.argv[3], workers=2)
assert not ray.is_initialized()
print(json.dumps([[r.task, r.seed, r.steps, r.error] for r in results]))
"""


@pytest.mark.ray
@requires_ray
def test_run_suite_on_workers_starts_a_local_cluster(tmp_path):
    # A fresh process, as `icae-env run --workers 2` would be, with no cluster named in its environment.
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "ICAE_TEST_RAY_CLIENT"}
    command = [sys.executable, "-c", LOCAL_RUN, *TASKS[:2], str(tmp_path)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == [
        ["token-bucket", 0, 3, None],
        ["token-bucket", 1, 3, None],
        ["unidiff", 0, 3, None],
        ["unidiff", 1, 3, None],
    ]
    assert "4/4" in done.stderr  # the progress line
    assert len(_jsonl(tmp_path / "results.jsonl")) == 4 and (tmp_path / "summary.md").is_file()
