"""The Oracle HTTP server: the reference client flow over real HTTP on ephemeral ports."""

from __future__ import annotations

import argparse
import http.client
import json
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from interrupt import default_sigint

from icae_env.cli.serve import add_serve_commands
from icae_env.icae_bench.load import load_icae_bench
from icae_env.registration import DEFAULT_ROUTER
from icae_env.serve.oracle import DEFAULT_PORTS, PUBLISHED_KEY, OracleServer, OracleService
from icae_env.tasks import load_task

TASK = "builtin/dep-resolver"
OFF_TOPIC = "what is the weather like today?"
#: The reference's per-task stats fields, in its order.
STATS_FIELDS = [
    "task_id",
    "model",
    "turns_used",
    "max_interactions",
    "budget_usage_rate",
    "fallbacks",
    "fallback_rate",
    "triggers_hit",
    "total_constraints",
    "constraint_coverage",
    "missed_constraints",
    "interaction_score",
]
INTERNAL_LOG_FIELDS = [
    "triggers_hit",
    "api_alignment_triggered",
    "fallback_triggered",
    "cheating_attempt_detected",
    "score_adjustment",
]


class Client:
    """The reference harness's view: three URLs, JSON over POST."""

    def __init__(self, server: OracleServer) -> None:
        self.urls = server.urls

    def raw(self, endpoint: str, body: bytes, method: str = "POST") -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(self.urls[endpoint], data=body if method == "POST" else None, method=method)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def post(self, endpoint: str, payload: Any) -> dict[str, Any]:
        code, body = self.raw(endpoint, json.dumps(payload).encode())
        assert code == 200, body
        return body

    def init(self, **payload: Any) -> str:
        body = self.post("init", {"key": PUBLISHED_KEY, "model": "m", **payload})
        assert body["status"]["ok"] is True, body
        return body["append_id"]

    def ask(self, append_id: str, question: str, task_id: str = TASK) -> dict[str, Any]:
        return self.post("interaction", {"append_id": append_id, "task_id": task_id, "question": question})

    def stats(self, append_id: str, task_id: str | None = None) -> dict[str, Any]:
        payload = {"append_id": append_id} | ({"task_id": task_id} if task_id else {})
        body = self.post("stats", payload)
        assert body["status"] == {"ok": True}, body
        return body["stats"]


@pytest.fixture(scope="module")
def server():
    with OracleServer(OracleService(), ports=(0, 0, 0)) as srv:
        yield srv


@pytest.fixture
def client(server: OracleServer) -> Client:
    return Client(server)


@pytest.fixture
def icae_client(icae_sample: Path):
    with OracleServer(OracleService(data_root=icae_sample), ports=(0, 0, 0)) as srv:
        yield Client(srv)


def expected_stats(task: str, records: list[str], hit: list[str], turns: int, fallbacks: int, budget: int):
    return {
        "task_id": task,
        "model": "m",
        "turns_used": turns,
        "max_interactions": budget,
        "budget_usage_rate": round(100 * turns / budget, 1),
        "fallbacks": fallbacks,
        "fallback_rate": round(100 * fallbacks / turns, 1) if turns else 0.0,
        "triggers_hit": sorted(hit),
        "total_constraints": len(records),
        "constraint_coverage": round(100 * len(hit) / len(records), 1),
        "missed_constraints": [r for r in records if r not in hit],
        "interaction_score": 0,
    }


def assert_stats(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    assert list(actual) == list(expected) == STATS_FIELDS
    assert actual == expected


def record_ids(data) -> list[str]:
    return [c.constraint_id for c in data.hidden_constraints]


def test_server_binds_ephemeral_ports(server: OracleServer):
    assert len(set(server.ports)) == 3 and all(p > 0 for p in server.ports)
    assert DEFAULT_PORTS == (50001, 50002, 50003)


def test_builtin_reference_flow(client: Client):
    data = load_task(TASK).user_agent_data("L1")
    payload = {"key": PUBLISHED_KEY, "model": "m", "max_interactions": 4, "difficulty": "normal"}
    init = client.post("init", payload)
    assert re.fullmatch(r"[0-9a-f]{32}", init["append_id"])
    status = {"ok": True, "max_interactions": 4, "model": "m", "difficulty": "normal", "open_access": False}
    assert init["status"] == status
    sid = init["append_id"]

    hit = client.ask(sid, "how are cycles reported?")
    c004 = next(c for c in data.hidden_constraints if c.constraint_id == "C004")
    assert hit["data"] == c004.oracle_response
    assert hit["status"] == {
        "ok": True,
        "remaining": 3,
        "internal_log": {
            "triggers_hit": ["C004"],
            "api_alignment_triggered": False,
            "fallback_triggered": False,
            "cheating_attempt_detected": False,
            "score_adjustment": 0,
        },
        "parse_error": False,
    }
    assert list(hit["status"]["internal_log"]) == INTERNAL_LOG_FIELDS

    miss = client.ask(sid, OFF_TOPIC)
    assert miss["data"] == data.fallback_response
    log = miss["status"]["internal_log"]
    assert (log["triggers_hit"], log["fallback_triggered"]) == ([], True)
    assert miss["status"]["remaining"] == 2

    assert (
        client.ask(sid, "how is the cache used for dependencies")["status"]["internal_log"]["triggers_hit"][0] == "C006"
    )
    assert client.ask(sid, OFF_TOPIC)["status"]["remaining"] == 0
    for _ in range(2):
        refused = client.ask(sid, "how are cycles reported?")
        assert refused == {"data": "", "status": {"ok": False, "error": "max_interactions_reached", "remaining": 0}}

    stats = client.stats(sid, TASK)
    records = record_ids(data)
    assert_stats(stats, expected_stats(TASK, records, ["C004", "C006"], turns=4, fallbacks=2, budget=4))
    assert stats["budget_usage_rate"] == 100.0 and stats["fallback_rate"] == 50.0


def test_levels_follow_difficulty(client: Client):
    task = load_task(TASK)
    for difficulty, level in (("normal", "L1"), ("medium", "L2"), ("easy", "L3")):
        sid = client.init(difficulty=difficulty)
        client.ask(sid, OFF_TOPIC)
        stats = client.stats(sid, TASK)
        assert stats["total_constraints"] == len(task.user_agent_data(level).hidden_constraints)
        assert stats["turns_used"] == 1 and stats["max_interactions"] == 16
    easy = client.init(difficulty="easy")
    first = task.user_agent_data("L3").hidden_constraints[0]
    reply = client.ask(easy, first.trigger_keywords[0])
    assert reply["status"]["internal_log"]["triggers_hit"] == [first.constraint_id]


def test_init_errors(client: Client):
    key = PUBLISHED_KEY
    for payload, error in (
        ({"key": key, "model": "m", "difficulty": "hard"}, "difficulty must be 'normal', 'medium', or 'easy'"),
        ({"key": key, "model": "m", "max_interactions": "many"}, "max_interactions must be an integer, got 'many'"),
        ({"key": 3, "model": "m"}, "invalid key"),
        ({"key": "k", "model": "m"}, "invalid key"),
        ({"model": "m"}, "invalid key"),
        ({"key": key}, "missing model"),
        ({"key": key, "model": ""}, "missing model"),
    ):
        body = client.post("init", payload)
        assert body == {"append_id": None, "status": {"ok": False, "error": error}}, payload
    assert client.post("init", {"difficulty": "hard"})["status"]["error"] == "invalid key"  # the key comes first


def test_interaction_error_strings(client: Client):
    sid = client.init(max_interactions=0)
    cases = [
        ({"append_id": "0" * 32, "task_id": TASK, "question": "q"}, "invalid append_id"),
        ({"task_id": TASK, "question": "q"}, "invalid append_id"),
        ({"append_id": ["x"], "task_id": TASK, "question": "q"}, "invalid append_id"),
        ({"append_id": sid, "task_id": TASK}, "missing task_id/question"),
        ({"append_id": sid, "question": "q"}, "missing task_id/question"),
        ({"append_id": sid, "task_id": TASK, "question": "  "}, "missing task_id/question"),
        ({"append_id": sid, "task_id": "no-such-task", "question": "q"}, "no prd for no-such-task"),
        ({"append_id": sid, "task_id": "../../etc/passwd", "question": "q"}, "no prd for ../../etc/passwd"),
        ({"append_id": sid, "task_id": TASK, "question": "q"}, "max_interactions_reached"),
    ]
    for payload, error in cases:
        body = client.post("interaction", payload)
        assert body["data"] == "" and body["status"]["ok"] is False, payload
        assert body["status"]["error"] == error, payload
    assert client.stats(sid, TASK)["turns_used"] == 0  # the refused question was logged, not counted
    bad = client.post("stats", {"append_id": "nope"})
    assert bad == {"status": {"ok": False, "error": "invalid append_id format"}}
    assert client.post("stats", {"append_id": sid, "task_id": "nope"})["status"]["error"] == "no log for nope"


@pytest.mark.parametrize("endpoint", ["init", "interaction", "stats"])
@pytest.mark.parametrize(
    ("body", "code"),
    [(b"{not json", 400), (b"[1, 2]", 400), (b'"text"', 400), (b"\xff\xfe\x00", 400), (b"", 400)],
)
def test_unusable_bodies(client: Client, endpoint: str, body: bytes, code: int):
    status, answer = client.raw(endpoint, body)
    assert status == code
    assert answer["status"]["ok"] is False and answer["status"]["error"]
    assert answer.get("data", "") == ""


def test_no_content_length_and_no_chunks_is_an_empty_body(server: OracleServer):
    connection = http.client.HTTPConnection("127.0.0.1", server.ports[1], timeout=5)
    connection.putrequest("POST", "/")
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 400
    assert json.loads(response.read())["status"] == {
        "ok": False,
        "error": "request body is empty (expected a JSON object)",
    }
    connection.close()


def test_get_is_not_allowed(client: Client):
    for endpoint in ("init", "interaction", "stats"):
        code, body = client.raw(endpoint, b"", method="GET")
        assert code == 405 and body["status"]["ok"] is False


def test_unexpected_exception_is_a_json_500():
    class Broken(OracleService):
        def stats(self, payload):
            raise RuntimeError("boom")

    with OracleServer(Broken(), ports=(0, 0, 0)) as srv:
        client = Client(srv)
        code, body = client.raw("stats", b"{}")
        assert code == 500 and body["status"]["ok"] is False and "boom" in body["status"]["error"]
        assert client.init()  # still serving


def test_builtin_aliases_share_one_agent(client: Client):
    sid = client.init(max_interactions=3)
    assert client.ask(sid, OFF_TOPIC, task_id="builtin/unidiff")["status"]["remaining"] == 2
    assert client.ask(sid, OFF_TOPIC, task_id="unidiff")["status"]["remaining"] == 1


def test_session_stats_are_the_reference_aggregate(client: Client):
    sid = client.init(max_interactions=4)
    empty = client.post("stats", {"append_id": sid})
    assert empty == {"status": {"ok": False, "error": "no log found for append_id"}}
    client.ask(sid, "how are cycles reported?")
    client.ask(sid, OFF_TOPIC)
    client.ask(sid, OFF_TOPIC, task_id="unidiff")
    first, second = client.stats(sid, TASK), client.stats(sid, "builtin/unidiff")
    overall = client.stats(sid)
    assert list(overall) == [
        "append_id",
        "model",
        "repos",
        "turns_used",
        "max_interactions",
        "budget_usage_rate",
        "fallbacks",
        "fallback_rate",
        "constraint_coverage",
        "interaction_score",
        "per_repo",
    ]
    assert (overall["append_id"], overall["model"], overall["repos"], overall["max_interactions"]) == (sid, "m", 2, 4)
    assert overall["turns_used"] == 3 and overall["fallbacks"] == first["fallbacks"] + second["fallbacks"] == 2
    assert overall["budget_usage_rate"] == round((50.0 + 25.0) / 2, 1) == 37.5
    assert overall["fallback_rate"] == round((50.0 + 100.0) / 2, 1) == 75.0
    mean_coverage = round((first["constraint_coverage"] + second["constraint_coverage"]) / 2, 1)
    assert overall["constraint_coverage"] == mean_coverage
    assert overall["interaction_score"] == first["interaction_score"] + second["interaction_score"]
    assert overall["per_repo"] == {TASK: first, "builtin/unidiff": second}


def test_concurrent_sessions_are_isolated(client: Client):
    questions = ["how are cycles reported?", OFF_TOPIC, "how is the cache used for dependencies"]
    results: dict[int, list[dict[str, Any]]] = {}
    sessions = [client.init(max_interactions=10), client.init(max_interactions=10)]

    def run(index: int, count: int) -> None:
        results[index] = [client.ask(sessions[index], questions[i % 3]) for i in range(count)]

    threads = [threading.Thread(target=run, args=(i, n)) for i, n in enumerate((6, 3))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, count in enumerate((6, 3)):
        assert [r["status"]["remaining"] for r in results[index]] == list(range(9, 9 - count, -1))
        assert client.stats(sessions[index], TASK)["turns_used"] == count


def test_concurrent_questions_in_one_session_respect_the_budget(client: Client):
    sid = client.init(max_interactions=5)
    replies: list[dict[str, Any]] = []
    lock = threading.Lock()

    def ask() -> None:
        reply = client.ask(sid, OFF_TOPIC)
        with lock:
            replies.append(reply)

    threads = [threading.Thread(target=ask) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ok = sorted(r["status"]["remaining"] for r in replies if r["status"]["ok"])
    assert ok == [0, 1, 2, 3, 4]
    assert sum(r["status"].get("error") == "max_interactions_reached" for r in replies) == 7
    assert client.stats(sid, TASK)["turns_used"] == 5


def test_icae_sample_flow(icae_client: Client, icae_sample: Path):
    task = load_icae_bench(icae_sample, "realcode@001", "L1")
    data = task.user_agent_data("L1")
    sid = icae_client.init(max_interactions=3, difficulty="normal")
    reply = icae_client.ask(sid, "what dependency styles are supported", task_id="realcode@001")
    assert reply["status"]["internal_log"]["triggers_hit"] == ["C001"]
    assert reply["data"] == data.hidden_constraints[0].oracle_response
    by_key = icae_client.ask(sid, OFF_TOPIC, task_id="dependents__node-dependency-tree")
    assert by_key["data"] == data.fallback_response and by_key["status"]["remaining"] == 1
    assert icae_client.ask(sid, "how does the cache work", task_id="realcode@001")["status"]["remaining"] == 0
    refused = icae_client.ask(sid, "how does the cache work", task_id="realcode@001")
    assert refused["status"]["error"] == "max_interactions_reached"
    stats = icae_client.stats(sid, "realcode@001")
    records = record_ids(data)
    assert_stats(stats, expected_stats("realcode@001", records, ["C001", "C004"], turns=3, fallbacks=1, budget=3))
    assert (
        icae_client.post("interaction", {"append_id": sid, "task_id": "realcode@999", "question": "q"})["status"][
            "error"
        ]
        == "no prd for realcode@999"
    )
    assert icae_client.ask(sid, OFF_TOPIC, task_id="dep-resolver")["status"]["ok"] is True  # built-ins still resolve


def test_icae_sample_levels(icae_client: Client, icae_sample: Path):
    task = load_icae_bench(icae_sample, "realcode@002", "L1")
    for difficulty, level in (("medium", "L2"), ("easy", "L3")):
        sid = icae_client.init(difficulty=difficulty)
        icae_client.ask(sid, OFF_TOPIC, task_id="realcode@002")
        stats = icae_client.stats(sid, "realcode@002")
        assert stats["total_constraints"] == len(task.user_agent_data(level).hidden_constraints)


def test_service_rejects_bad_settings(tmp_path: Path):
    with pytest.raises(ValueError):
        OracleService(router="nope")
    with pytest.raises(ValueError):
        OracleService(default_budget=-1)
    with pytest.raises(ValueError):
        OracleService(data_root=tmp_path)
    with pytest.raises(ValueError):
        OracleServer(OracleService(), ports=(0, 0))


def test_close_is_idempotent_and_frees_ports():
    srv = OracleServer(OracleService(), ports=(0, 0, 0))
    srv.start()
    port = srv.ports[0]
    srv.close()
    srv.close()
    with pytest.raises(RuntimeError):
        srv.start()
    OracleServer(OracleService(), ports=(port, 0, 0)).close()  # rebindable, never started: close still works


def test_cli_arguments():
    parser = argparse.ArgumentParser(prog="icae-env")
    add_serve_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", "oracle"])
    assert (args.ports, args.host, args.router, args.budget, args.data_root) == (
        DEFAULT_PORTS,
        "127.0.0.1",
        DEFAULT_ROUTER,
        16,
        None,
    )
    assert (args.key, args.allow_keyless, args.state_dir, args.fsync) == (PUBLISHED_KEY, False, None, False)
    args = parser.parse_args(["serve", "oracle", "--ports", "1,2,3", "--budget", "5", "--data-root", "/x"])
    assert (args.ports, args.budget, args.data_root, callable(args.func)) == ((1, 2, 3), 5, Path("/x"), True)
    args = parser.parse_args(["serve", "oracle", "--key", "s3", "--allow-keyless", "--state-dir", "/d", "--fsync"])
    assert (args.key, args.allow_keyless, args.state_dir, args.fsync) == ("s3", True, Path("/d"), True)
    for bad in (["--ports", "1,2"], ["--ports", "a,b,c"], ["--budget", "-1"], ["--router", "nope"], ["--key", ""]):
        with pytest.raises(SystemExit):
            parser.parse_args(["serve", "oracle", *bad])


CLI_SCRIPT = """
import argparse, sys
from icae_env.cli.oracle import add_oracle_commands
from icae_env.cli.serve import add_serve_commands
parser = argparse.ArgumentParser()
commands = parser.add_subparsers(dest="command", required=True)
add_serve_commands(commands)
add_oracle_commands(commands)
args = parser.parse_args(sys.argv[1:])
try:
    sys.exit(args.func(args))
except KeyboardInterrupt:
    sys.exit(130)
"""
OLD_SPELLING_NOTE = (
    "icae-env: note: `icae-env oracle serve` is now `icae-env serve oracle`; "
    "the old spelling is removed in the next release\n"
)


@pytest.mark.parametrize(("spelling", "stderr"), [(["serve", "oracle"], ""), (["oracle", "serve"], OLD_SPELLING_NOTE)])
def test_cli_serves_until_interrupted(spelling, stderr):
    """``icae-env serve oracle`` serves until SIGINT; the old spelling ``oracle serve`` does too, after one notice."""
    command = [sys.executable, "-c", CLI_SCRIPT, *spelling, "--ports", "0,0,0", "--budget", "2"]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint
    )
    try:
        banner = proc.stdout.readline()
        urls = dict(re.findall(r"(init|interaction|stats) (http://\S+/)", banner))
        assert set(urls) == {"init", "interaction", "stats"}, banner
        body = json.dumps({"key": PUBLISHED_KEY, "model": "m"}).encode()
        request = urllib.request.Request(urls["init"], data=body, method="POST")
        with urllib.request.urlopen(request, timeout=5) as response:
            assert json.loads(response.read())["status"]["max_interactions"] == 2
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=5) == 130
        assert proc.stderr.read() == stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
