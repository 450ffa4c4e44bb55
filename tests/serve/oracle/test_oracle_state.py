"""Oracle sessions persist under ``--state-dir``: restarts, crashes and evictions lose nothing; bad files are named."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest
from oracle_client import CLI, PUBLISHED_KEY, ROOT, ReferenceClient, http_post, serve_cli

from icae_env.errors import ConfigError
from icae_env.serve.oracle import OracleServer, OracleService
from icae_env.serve.oracle.store import MARKER, DirectoryStore, StateFileError

TASK = "builtin/dep-resolver"
QUESTIONS = ["how are cycles reported?", "what is the weather like today?", "how is the cache used for dependencies"]


def task_log(state: Path, append_id: str, task: str = TASK) -> Path:
    return state / "sessions" / append_id / "tasks" / (task.replace("/", "%2F") + ".jsonl")


def test_a_session_survives_a_server_restart(tmp_path: Path):
    state = tmp_path / "state"
    with serve_cli("--state-dir", str(state)) as (client, proc):
        for payload in ({"model": "m"}, {"key": "guess", "model": "m", "max_interactions": 1000000}):
            assert client.post("init", payload) == {"append_id": None, "status": {"ok": False, "error": "invalid key"}}
        sid = client.mint(max_interactions=3, difficulty="normal", open_access=True)
        question = json.dumps({"append_id": sid, "task_id": TASK, "question": QUESTIONS[0]}).encode()
        status, _, raw = http_post(client.ports["interaction"], iter([question[:9], question[9:]]), chunked=True)
        assert status == 200 and json.loads(raw)["status"]["remaining"] == 2
        assert client.stats(sid, "unidiff") == {"status": {"ok": False, "error": "no log for unidiff"}}
    assert proc.returncode == 130
    with serve_cli("--state-dir", str(state)) as (client, _):
        assert client.validate_append_id(sid) is True  # resumed without init
        assert client.ask(sid, TASK, QUESTIONS[1])["status"]["remaining"] == 1  # the budget carries on
        assert client.ask(sid, "unidiff", QUESTIONS[1])["status"]["remaining"] == 2
        before = client.stats_ok(sid)
    with serve_cli("--state-dir", str(state)) as (client, _):  # eval reads the stats later
        stats = client.stats_ok(sid, TASK)
        assert (stats["turns_used"], stats["fallbacks"], stats["triggers_hit"]) == (2, 1, ["C004"])
        assert client.stats_ok(sid) == before and before["repos"] == 2 and before["turns_used"] == 3
        assert client.ask(sid, TASK, QUESTIONS[2])["status"]["remaining"] == 0
        refused = client.ask(sid, TASK, QUESTIONS[2])
        assert refused["status"] == {"ok": False, "error": "max_interactions_reached", "remaining": 0}
    settings = json.loads((state / "sessions" / sid / "session.json").read_text())
    assert settings == {"model": "agent-x", "difficulty": "normal", "max_interactions": 3, "open_access": True}


def test_a_killed_server_keeps_every_answered_question(tmp_path: Path):
    state = tmp_path / "state"
    with serve_cli("--state-dir", str(state)) as (client, proc):
        sid = client.mint()
        for question in QUESTIONS:
            assert client.ask(sid, TASK, question)["status"]["ok"]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    with serve_cli("--state-dir", str(state)) as (client, _):  # the kernel released the lock
        assert client.stats_ok(sid, TASK)["turns_used"] == 3
        assert client.ask(sid, TASK, QUESTIONS[0])["status"]["remaining"] == 12


def test_a_restarted_agent_answers_as_if_never_stopped(tmp_path: Path):
    sequence = QUESTIONS * 2
    with OracleService() as service:
        sid = service.init({"key": PUBLISHED_KEY, "model": "m"})["append_id"]
        expected = [service.interaction({"append_id": sid, "task_id": TASK, "question": q}) for q in sequence]
    replies = []
    for question in sequence:  # one server per question: every agent is rebuilt from the log
        with OracleService(state_dir=tmp_path) as service:
            if not replies:
                sid = service.init({"key": PUBLISHED_KEY, "model": "m"})["append_id"]
            replies.append(service.interaction({"append_id": sid, "task_id": TASK, "question": question}))
    assert replies == expected


@pytest.mark.parametrize("state", [True, False], ids=["state-dir", "memory"])
def test_eviction_under_max_sessions_1_loses_nothing(tmp_path: Path, state: bool):
    options = ["--max-sessions", "1", *(["--state-dir", str(tmp_path / "s")] if state else [])]
    with serve_cli(*options) as (client, _):
        first, second = client.mint(max_interactions=5), client.mint(max_interactions=5)
        assert client.ask(first, TASK, QUESTIONS[0])["status"]["remaining"] == 4
        assert client.ask(second, TASK, QUESTIONS[1])["status"]["remaining"] == 4
        third = client.mint()
        assert client.ask(third, "unidiff", QUESTIONS[1])["status"]["ok"]
        stats = client.stats_ok(first)
        assert (stats["repos"], stats["turns_used"], stats["per_repo"][TASK]["triggers_hit"]) == (1, 1, ["C004"])
        assert client.ask(first, TASK, QUESTIONS[2])["status"]["remaining"] == 3
        assert client.stats_ok(second, TASK)["fallbacks"] == 1
        assert client.validate_append_id(second) and client.validate_append_id(third)


def test_concurrent_sessions_with_one_slot_keep_their_budgets(tmp_path: Path):
    service = OracleService(max_sessions=1, state_dir=tmp_path)
    with service, OracleServer(service, ports=(0, 0, 0)) as server:
        client = ReferenceClient(server.ports)
        sessions = [client.mint(max_interactions=6) for _ in range(4)]
        seen: dict[str, list[int]] = {sid: [] for sid in sessions}

        def run(sid: str) -> None:
            for i in range(8):
                reply = client.ask(sid, TASK, QUESTIONS[i % 3])
                seen[sid].append(reply["status"]["remaining"])

        threads = [threading.Thread(target=run, args=(sid,)) for sid in sessions for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for sid in sessions:
            assert sorted(seen[sid]) == [0] * 11 + [1, 2, 3, 4, 5]  # 6 counted (5..0), 10 refused (remaining 0)
            assert client.stats_ok(sid, TASK)["turns_used"] == 6
            lines = task_log(tmp_path, sid).read_text().splitlines()
            assert len(lines) == 1 + 16 and sum('"error"' in line for line in lines) == 10
        assert service.session_count == 1 and service.sessions_evicted > 0


def test_state_layout_and_no_log_without_a_question(tmp_path: Path):
    with OracleService(state_dir=tmp_path) as service:
        sid = service.init({"key": PUBLISHED_KEY, "model": "m"})["append_id"]
        for task_id in ("__preflight__", "no-such-task"):
            service.interaction({"append_id": sid, "task_id": task_id, "question": "ping"})
        assert list((tmp_path / "sessions" / sid / "tasks").iterdir()) == []
        service.interaction({"append_id": sid, "task_id": "dep-resolver", "question": QUESTIONS[0]})
    assert json.loads((tmp_path / MARKER).read_text()) == {"format": "icae-env-oracle-state", "version": 1}
    assert PUBLISHED_KEY not in (tmp_path / "sessions" / sid / "session.json").read_text()  # the key is not kept
    header, turn = (json.loads(line) for line in task_log(tmp_path, sid).read_text().splitlines())
    assert header["task_id"] == TASK and header["level"] == "L1" and "C004" in header["constraints"]
    assert (turn["turn"], turn["remaining"], turn["question"], turn["triggers_hit"]) == (1, 15, QUESTIONS[0], ["C004"])


def test_a_torn_last_line_is_dropped_and_leftover_temp_files_ignored(tmp_path: Path):
    with OracleService(state_dir=tmp_path) as service:
        sid = service.init({"key": PUBLISHED_KEY, "model": "m"})["append_id"]
        service.interaction({"append_id": sid, "task_id": TASK, "question": QUESTIONS[0]})
    log = task_log(tmp_path, sid)
    intact = log.read_bytes()
    log.write_bytes(intact + b'{"turn":2,"remaining":14,"question":"how ar')  # killed mid-append
    (log.parent / ".builtin%2Funidiff.jsonl.abc.tmp").write_text("{")  # killed mid-rename
    with OracleService(state_dir=tmp_path) as service:
        stats = service.stats({"append_id": sid})["stats"]
        assert stats["turns_used"] == 1 and list(stats["per_repo"]) == [TASK]
        assert log.read_bytes() == intact
        reply = service.interaction({"append_id": sid, "task_id": TASK, "question": QUESTIONS[1]})
        assert reply["status"]["remaining"] == 14
    assert len(log.read_text().splitlines()) == 3
    other = task_log(tmp_path, sid, "builtin/unidiff")
    other.write_text('{"task_id":"builtin/unidiff","level":"L1","constr')  # killed in its very first write
    with OracleService(state_dir=tmp_path) as service:
        assert service.stats({"append_id": sid, "task_id": "unidiff"})["status"]["error"] == "no log for unidiff"
        assert not other.exists()
        assert service.interaction({"append_id": sid, "task_id": "unidiff", "question": "q?"})["status"]["ok"]
    assert len(other.read_text().splitlines()) == 2


def corrupt_and_request(state: Path, path: Path, text: str, payload: dict, endpoint: int) -> str:
    path.write_text(text)
    with OracleService(state_dir=state) as service, OracleServer(service, ports=(0, 0, 0)) as server:
        status, _, raw = http_post(server.ports[endpoint], json.dumps(payload).encode())
    assert status == 500
    return json.loads(raw)["status"]["error"]


def test_a_corrupt_state_file_gives_an_error_naming_it(tmp_path: Path):
    with OracleService(state_dir=tmp_path) as service:
        sid = service.init({"key": PUBLISHED_KEY, "model": "m"})["append_id"]
        service.interaction({"append_id": sid, "task_id": TASK, "question": QUESTIONS[0]})
        service.interaction({"append_id": sid, "task_id": TASK, "question": QUESTIONS[1]})
    log, settings = task_log(tmp_path, sid), tmp_path / "sessions" / sid / "session.json"
    good_log, good_settings = log.read_text(), settings.read_text()
    header, first, second = good_log.splitlines()
    error = corrupt_and_request(tmp_path, log, f"{header}\n{{oops\n{second}\n", {"append_id": sid}, 2)
    assert f"StateFileError: {log}: line 2: not JSON" in error
    error = corrupt_and_request(tmp_path, log, f"{header}\n[1]\n{second}\n", {"append_id": sid, "task_id": TASK}, 2)
    assert f"{log}: line 2: bad log entry" in error
    log.write_text(good_log)
    question = {"append_id": sid, "task_id": TASK, "question": "q"}
    assert str(settings) in corrupt_and_request(tmp_path, settings, "{not json", question, 1)
    assert str(settings) in corrupt_and_request(tmp_path, settings, '{"model": 3}', question, 1)
    settings.write_text(good_settings)
    with OracleService(state_dir=tmp_path) as service:
        assert service.stats({"append_id": sid})["stats"]["turns_used"] == 2  # repaired by hand: readable again


def test_state_directory_checks(tmp_path: Path):
    foreign = tmp_path / "home"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not an icae-env oracle state directory"):
        OracleService(state_dir=foreign)
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]  # nothing written there
    with pytest.raises(ConfigError, match="is a file"):
        OracleService(state_dir=foreign / "notes.txt")
    state = tmp_path / "state"
    DirectoryStore(state).close()
    (state / MARKER).write_text('{"format": "icae-env-oracle-state", "version": 99}')
    with pytest.raises(StateFileError, match=str(state / MARKER)):
        OracleService(state_dir=state)


def test_one_server_per_state_directory(tmp_path: Path):
    with OracleService(state_dir=tmp_path):
        with pytest.raises(ConfigError, match="in use by another icae-env serve oracler"):
            OracleService(state_dir=tmp_path)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        result = subprocess.run([*CLI, "--state-dir", str(tmp_path)], capture_output=True, text=True, env=env)
        assert result.returncode == 2 and "in use by another icae-env serve oracler" in result.stderr
    OracleService(state_dir=tmp_path).close()  # free again once closed


def test_memory_store_also_never_loses_an_evicted_session():
    with OracleService(max_sessions=1) as service:
        ids = [service.init({"key": PUBLISHED_KEY, "model": "m"})["append_id"] for _ in range(3)]
        for sid in ids * 2:
            service.interaction({"append_id": sid, "task_id": TASK, "question": QUESTIONS[0]})
        assert [service.stats({"append_id": sid})["stats"]["turns_used"] for sid in ids] == [2, 2, 2]
        assert service.session_count == 1 and service.sessions_evicted == 2 + 6 + 3  # inits, asks, stats
