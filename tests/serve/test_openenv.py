"""``icae-env serve openenv`` end to end: real servers on 127.0.0.1 (via the CLI), real WebSocket clients."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openenv", reason='the OpenEnv server needs the openenv extra: pip install "icae-env[openenv]"')

from servers import process_tree, processes_mentioning, survivors, wait_until  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

import icae_env  # noqa: E402
from icae_env.run.trajectory import jsonable  # noqa: E402
from icae_env.sandbox.local import reap_stale_dirs  # noqa: E402
from icae_env.serve import IcaeAction, OpenEnvClient  # noqa: E402

_TIMING_KEYS = {"timing", "episode_timing", "duration_s"}


def _stable(value: Any) -> Any:
    """``value`` without its wall-clock measurements (they differ between any two runs)."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in _TIMING_KEYS}
    if isinstance(value, (list, tuple)):
        return [_stable(v) for v in value]
    return value


def _direct(task: str, actions: list[Any], max_steps: int = 4) -> list[tuple]:
    """The same episode in process: ``(obs, reward, terminated, truncated, info)`` per step."""
    env = icae_env.make("icae/ProjectBuild-v0", task="builtin/unidiff", max_steps=max_steps)
    try:
        env.reset(seed=0, options={"task": task})
        return [env.step(action) for action in actions]
    finally:
        env.close()


def _questions(task: str) -> tuple[str, ...]:
    env = icae_env.make("icae/ProjectBuild-v0", task=task)
    try:
        env.reset(seed=0)
        return env.unwrapped.cheat().questions
    finally:
        env.close()


def _assert_same_steps(served: list, direct: list[tuple]) -> None:
    assert len(served) == len(direct)
    for result, (obs, reward, terminated, truncated, info) in zip(served, direct, strict=True):
        seen = result.observation
        assert (seen.output, seen.source, seen.exit_code, seen.step) == (
            obs["output"], obs["source"], obs["exit_code"], obs["step"]
        )  # fmt: skip
        assert (result.reward, seen.terminated, seen.truncated) == (reward, terminated, truncated)
        assert _stable(seen.info) == _stable(jsonable(info))


async def _ws_episode(url: str, task: str, actions: list[Any]) -> list:
    async with OpenEnvClient(url) as client:
        await client.reset(seed=0, task=task)
        return [await client.step(action) for action in actions]


def _http(url: str, path: str, body: dict | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_health_and_schema_answer(servers):
    url = servers["main"].url
    assert _http(url, "/health") == (200, {"status": "healthy"})
    status, schema = _http(url, "/schema")
    assert status == 200
    assert {"tool", "command", "question", "text"} <= set(schema["action"]["properties"])
    assert {"output", "source", "exit_code", "questions_left", "step", "reward", "done", "terminated", "truncated",
            "info"} <= set(schema["observation"]["properties"])  # fmt: skip
    assert {"env_id", "task", "level", "done", "total_reward", "step_count"} <= set(schema["state"]["properties"])


def test_a_session_less_http_step_is_a_clear_4xx(servers):
    url = servers["main"].url
    status, body = _http(url, "/step", {"action": {"tool": "bash", "command": "ls"}})
    assert status == 409
    assert "keeps no session" in body["detail"] and "/ws" in body["detail"] and "OpenEnvClient" in body["detail"]
    status, body = _http(url, "/step", {"action": {}})  # neither a tool call nor text
    assert status == 422 and "either 'tool'" in json.dumps(body)
    status, body = _http(url, "/reset", {"seed": 0, "colour": "red"})
    assert status == 400 and "unknown reset argument(s) ['colour']" in body["detail"]


def test_an_http_reset_answers_and_keeps_no_sandbox(servers):
    main = servers["main"]
    status, body = _http(main.url, "/reset", {"seed": 0, "task": "builtin/cron-next"})
    assert status == 200 and body["observation"]["info"]["task"] == "cron-next" and body["done"] is False
    assert wait_until(lambda: not main.sandbox_dirs(), timeout=10), main.sandbox_dirs()


def test_two_concurrent_episodes_of_sleep_1_keep_their_in_process_rewards(servers):
    sleep = IcaeAction(tool="bash", command="sleep 1")
    plans = {
        task: [{"tool": "ask", "question": _questions(task)[0]}, sleep, {"tool": "submit"}]
        for task in ("builtin/unidiff", "builtin/cron-next")
    }

    async def both() -> tuple[list, float]:
        started = time.perf_counter()
        results = await asyncio.gather(*(_ws_episode(servers["main"].url, t, a) for t, a in plans.items()))
        return results, time.perf_counter() - started

    results, elapsed = asyncio.run(both())
    print(f"two concurrent WebSocket episodes (reset, ask, sleep 1, submit): {elapsed:.2f} s")
    in_sandboxes = sum(step.observation.info["timing"]["sandbox_s"] for served in results for step in served)
    assert elapsed < in_sandboxes, "the episodes ran one after the other"  # together shorter than their sandbox time
    for (task, actions), served in zip(plans.items(), results, strict=True):
        direct = _direct(task, [a.to_env() if isinstance(a, IcaeAction) else a for a in actions])
        _assert_same_steps(served, direct)
        assert served[-1].done and served[-1].observation.terminated and served[-1].reward > 0


def test_an_episode_that_hits_max_steps_is_scored(servers):
    questions = _questions("builtin/unidiff")
    actions = [
        {"tool": "ask", "question": questions[0]},
        {"tool": "ask", "question": questions[1]},
        {"tool": "bash", "command": "echo hi"},
        {"tool": "bash", "command": "true"},
    ]  # the server's max_steps is 4: the last one truncates the episode, which is still scored
    with OpenEnvClient(servers["main"].url) as client:
        client.reset(seed=0)
        served = [client.step(action) for action in actions]
        state = client.state()
    last = served[-1]
    assert last.done and last.observation.truncated and not last.observation.terminated
    assert last.reward == last.observation.info["score"]["reward"] > 0
    assert state.done and state.step_count == 4 and state.total_reward == last.reward
    _assert_same_steps(served, _direct("builtin/unidiff", actions))


def _open_session(url: str, timeout: float = 30.0) -> OpenEnvClient:
    """A client whose session has reset (retried while the server is still closing an earlier session)."""
    deadline = time.monotonic() + timeout
    while True:
        client = OpenEnvClient(url)
        try:
            client.reset(seed=0)
            return client
        except RuntimeError as error:
            client.close()
            if "CAPACITY_REACHED" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_max_sessions_is_enforced_and_a_long_step_is_never_reaped(servers):
    small = servers["small"]  # --max-sessions 1 --idle-timeout 2
    first = _open_session(small.url)
    long_step: list = []
    stepping = threading.Thread(target=lambda: long_step.append(first.step({"tool": "bash", "command": "sleep 4"})))
    stepping.start()
    try:
        second = OpenEnvClient(small.url)
        with pytest.raises(RuntimeError, match=r"at capacity: 1/1 sessions active.*CAPACITY_REACHED"):
            second.reset(seed=0)
        second.close()
        stepping.join(60)
        assert long_step and long_step[0].observation.exit_code == 0  # 4 s of work > the 2 s idle timeout
    finally:
        stepping.join(60)
        first.close()
    _open_session(small.url).close()  # the slot is free again


def test_idle_sessions_are_closed_with_their_sandbox(servers):
    small = servers["small"]
    client = _open_session(small.url)
    try:
        [root] = small.sandbox_dirs()
        assert wait_until(lambda: not root.exists(), timeout=30), "the idle session's sandbox was not deleted"
        with pytest.raises(RuntimeError, match=r"session is closed \(idle for more than 2 s\)"):
            client.step({"tool": "bash", "command": "ls"})
    finally:
        client.close()


@contextmanager
def _busy_session(server) -> Iterator[tuple[str, dict[int, str]]]:
    """A raw WebSocket session running ``sleep 60`` in its sandbox: yields the sandbox root and the processes."""
    with connect(server.ws_url) as ws:
        ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
        assert json.loads(ws.recv())["type"] == "observation"
        ws.send(json.dumps({"type": "step", "data": {"tool": "bash", "command": "sleep 60"}}))
        sleeping = lambda: any(  # noqa: E731
            Path(f"/proc/{pid}/cmdline").read_bytes() == b"sleep\x0060\x00" for pid in process_tree(server.proc.pid)
        )
        assert wait_until(sleeping, timeout=30), "the step's command did not start"
        [root] = server.sandbox_dirs()
        yield str(root), process_tree(server.proc.pid)


def test_sigterm_closes_every_sandbox(servers):
    server = servers["term"]
    with _busy_session(server) as (root, tree):
        started = time.perf_counter()
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=60) == 130
        print(f"SIGTERM with a running step: the server exited in {time.perf_counter() - started:.2f} s")
    assert not server.sandbox_dirs()
    assert wait_until(lambda: not survivors(tree), timeout=10), survivors(tree)
    assert not processes_mentioning(root)


def test_a_sigkilled_servers_sandbox_dies_with_it_and_its_directory_is_reaped(servers):
    server = servers["kill"]
    with _busy_session(server) as (root, tree):
        server.proc.kill()
        server.proc.wait(timeout=30)
    assert wait_until(lambda: not survivors(tree), timeout=15), survivors(tree)  # bwrap --die-with-parent
    assert not processes_mentioning(root)
    reap_stale_dirs()  # what every new local sandbox runs first
    assert not server.sandbox_dirs()
