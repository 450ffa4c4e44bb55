"""Oracle sessions in memory stay bounded (idle ones and the least recently used are evicted) and are never lost.

An evicted session is reloaded from the store on its next request, so its budget, log and stats carry on.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.request

import pytest

from icae_env.serve.oracle import PUBLISHED_KEY, OracleServer, OracleService

TASK = "builtin/dep-resolver"
QUESTION = "how are cycles reported?"


class Clock:
    """A settable monotonic clock (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def open_session(service: OracleService) -> str:
    body = service.init({"key": PUBLISHED_KEY, "model": "m"})
    assert body["status"]["ok"] is True, body
    return body["append_id"]


def ask(service: OracleService, append_id: str) -> dict:
    return service.interaction({"append_id": append_id, "task_id": TASK, "question": QUESTION})


def test_least_recently_used_session_makes_room_and_comes_back():
    service = OracleService(max_sessions=3, clock=Clock())
    first, second, third = (open_session(service) for _ in range(3))
    assert ask(service, second)["status"]["remaining"] == 15
    assert ask(service, first)["status"]["ok"]  # first is now the most recently used
    fourth = open_session(service)  # evicts third, the least recently used
    assert service.session_count == 3 and service.sessions_evicted == 1
    assert ask(service, third)["status"]["remaining"] == 15  # reloaded (evicting second)
    assert ask(service, second)["status"]["remaining"] == 14  # reloaded: its budget carried on
    assert service.stats({"append_id": second, "task_id": TASK})["stats"]["turns_used"] == 2
    for append_id in (first, fourth):
        assert ask(service, append_id)["status"]["ok"], append_id
    assert service.session_count == 3


def test_idle_sessions_are_evicted_after_the_ttl_and_keep_their_stats():
    clock = Clock()
    service = OracleService(session_ttl_s=60, clock=clock)
    busy, idle = open_session(service), open_session(service)
    assert ask(service, idle)["status"]["remaining"] == 15
    clock.now += 59
    assert ask(service, busy)["status"]["ok"]
    stats = service.stats({"append_id": idle, "task_id": TASK})
    assert stats["stats"]["turns_used"] == 1  # 59 s idle: still in memory, the stats request refreshes it
    clock.now += 59
    assert ask(service, busy)["status"]["ok"]
    clock.now += 60
    assert service.session_count == 2
    service.stats({"append_id": "f" * 32})  # any request evicts the idle ones (an unknown id loads nothing)
    assert service.session_count == 0 and service.sessions_evicted == 2
    assert service.stats({"append_id": idle, "task_id": TASK})["stats"]["turns_used"] == 1
    assert service.stats({"append_id": busy})["stats"]["turns_used"] == 2
    assert ask(service, idle)["status"]["remaining"] == 14


def test_sessions_share_one_router_per_task_and_level():
    service = OracleService(clock=Clock())
    normal = [open_session(service) for _ in range(20)]
    medium = service.init({"key": PUBLISHED_KEY, "model": "m", "difficulty": "medium"})["append_id"]
    replies = {ask(service, a)["data"] for a in normal}
    assert len(replies) == 1
    ask(service, medium)
    assert service.router_count == 2  # dep-resolver at L1 and at L2, not one per session


def test_concurrent_sessions_on_a_shared_router_get_the_same_answers():
    service = OracleService(max_sessions=8)
    expected = ask(service, open_session(service))["data"]
    answers: list[str] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(10):
                answers.append(ask(service, open_session(service))["data"])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(answers) == 60 and set(answers) == {expected}
    assert service.session_count <= 8 and service.sessions_evicted == 61 - 8


@pytest.mark.parametrize(
    "options",
    [{"max_sessions": 0}, {"max_sessions": True}, {"session_ttl_s": 0}, {"session_ttl_s": float("nan")}],
)
def test_bad_limits_raise(options):
    with pytest.raises(ValueError, match=next(iter(options))):
        OracleService(**options)


def test_evictions_over_http_lose_nothing():
    service = OracleService(max_sessions=1)
    body = json.dumps({"key": PUBLISHED_KEY, "model": "m"}).encode()
    with OracleServer(service, ports=(0, 0, 0)) as server:
        ids = []
        for _ in range(3):
            request = urllib.request.Request(server.urls["init"], data=body, method="POST")
            with urllib.request.urlopen(request, timeout=5) as response:
                ids.append(json.loads(response.read())["append_id"])
        assert service.session_count == 1 and service.sessions_evicted == 2
        for append_id in ids:
            question = {"append_id": append_id, "task_id": TASK, "question": QUESTION}
            request = urllib.request.Request(server.urls["interaction"], data=json.dumps(question).encode())
            with urllib.request.urlopen(request, timeout=5) as response:
                assert json.loads(response.read())["status"]["remaining"] == 15
    assert service.session_count == 1


@pytest.mark.parametrize("flag", ["--max-sessions=0", "--session-ttl=-5", "--session-ttl=soon"])
def test_cli_rejects_bad_session_limits(flag):
    result = subprocess.run(
        [sys.executable, "-m", "icae_env.cli", "serve", "oracle", "--ports", "0,0,0", flag],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "expected a" in result.stderr, result.stderr
