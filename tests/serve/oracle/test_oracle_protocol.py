"""The Oracle server against the reference protocol (``../shared/icae-format.md`` section 5), over real HTTP."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from oracle_client import PUBLISHED_KEY, ReferenceClient, http_post

from icae_env.serve.oracle import OracleServer, OracleService
from icae_env.serve.oracle.interaction_log import TaskLog, proposes_default, task_stats, turn_entry
from icae_env.tasks import load_task

TASK = "builtin/dep-resolver"
CYCLES = "how are cycles reported?"  # hits C004
CACHE = "how is the cache used for dependencies"  # hits C006
OFF_TOPIC = "what is the weather like today?"


@pytest.fixture(scope="module")
def client():
    with OracleService() as service, OracleServer(service, ports=(0, 0, 0)) as server:
        yield ReferenceClient(server.ports)


@pytest.mark.parametrize(
    "payload",
    [{"model": "m"}, {"key": None, "model": "m"}, {"key": "", "model": "m"}, {"key": "k", "model": "m"}],
    ids=["no-key", "null", "empty", "wrong"],
)
def test_init_without_the_published_key_is_refused(client: ReferenceClient, payload):
    assert client.post("init", payload) == {"append_id": None, "status": {"ok": False, "error": "invalid key"}}


def test_a_custom_key_and_keyless_init():
    service = OracleService(key="s3cret", allow_keyless=True)
    with service, OracleServer(service, ports=(0, 0, 0)) as server:
        client = ReferenceClient(server.ports)
        for payload in ({"model": "m"}, {"key": "", "model": "m"}, {"key": "s3cret", "model": "m"}):
            assert client.post("init", payload)["status"]["ok"] is True, payload
        refused = client.post("init", {"key": PUBLISHED_KEY, "model": "m"})  # a wrong key is still wrong
        assert refused["status"] == {"ok": False, "error": "invalid key"}


@pytest.mark.parametrize(
    ("extra", "error"),
    [
        ({}, "missing model"),
        ({"model": ""}, "missing model"),
        ({"model": None}, "missing model"),
        ({"model": 7}, "model must be a string, got int"),
        ({"model": "m", "difficulty": "hard"}, "difficulty must be 'normal', 'medium', or 'easy'"),
        ({"model": "m", "difficulty": None}, "difficulty must be 'normal', 'medium', or 'easy'"),
        ({"model": "m", "open_access": "yes"}, "open_access must be a boolean, got 'yes'"),
    ],
)
def test_init_errors(client: ReferenceClient, extra, error):
    body = client.post("init", {"key": PUBLISHED_KEY, **extra})
    assert body == {"append_id": None, "status": {"ok": False, "error": error}}


@pytest.mark.parametrize(
    ("given", "budget"), [("16", 16), (16.0, 16), (16, 16), (" 8 ", 8), (2.9, 2), ("-1", -1), (None, 16)]
)
def test_max_interactions_goes_through_int(client: ReferenceClient, given, budget):
    init = client.post("init", {"key": PUBLISHED_KEY, "model": "m", "max_interactions": given})
    assert init["status"]["max_interactions"] == budget
    if budget > 0:
        assert client.ask(init["append_id"], TASK, OFF_TOPIC)["status"]["remaining"] == budget - 1


@pytest.mark.parametrize("given", ["16.0", "many", True, [16], {"n": 16}])
def test_max_interactions_that_int_refuses(client: ReferenceClient, given):
    body = client.post("init", {"key": PUBLISHED_KEY, "model": "m", "max_interactions": given})
    assert (
        body["append_id"] is None and body["status"]["error"] == f"max_interactions must be an integer, got {given!r}"
    )


def test_not_a_number_budget_is_refused(client: ReferenceClient):
    _, _, raw = http_post(
        client.ports["init"], b'{"key": "zVtwLTkCKwoCWq4Jq9D2", "model": "m", "max_interactions": NaN}'
    )
    assert json.loads(raw)["status"]["error"] == "max_interactions must be an integer, got nan"


def test_a_negative_budget_refuses_every_question(client: ReferenceClient):
    sid = client.mint(max_interactions=-1)
    for _ in range(2):
        refused = client.ask(sid, TASK, CYCLES)
        assert refused == {"data": "", "status": {"ok": False, "error": "max_interactions_reached", "remaining": 0}}
    _, _, raw = http_post(client.ports["stats"], json.dumps({"append_id": sid, "task_id": TASK}).encode())
    stats = json.loads(raw)["stats"]  # refused questions are logged, so the task has a log, with nothing counted
    assert (stats["turns_used"], stats["max_interactions"], stats["budget_usage_rate"]) == (0, -1, 0.0)
    assert b"-0.0" not in raw


def test_open_access_is_echoed(client: ReferenceClient):
    for given, echoed in ((True, True), (False, False), (None, False), (1, True)):
        init = client.post("init", {"key": PUBLISHED_KEY, "model": "m", "open_access": given})
        assert init["status"]["open_access"] is echoed, given
    assert client.post("init", {"key": PUBLISHED_KEY, "model": "m"})["status"]["open_access"] is False


def test_preflight(client: ReferenceClient):
    sid = client.mint()
    body = client.post("interaction", {"append_id": sid, "task_id": "__preflight__", "question": "ping"})
    assert body == {"data": "", "status": {"ok": False, "error": "no prd for __preflight__"}}
    assert client.validate_append_id(sid) is True
    for unknown in ("0" * 32, "not-an-id", sid.upper()):
        assert client.validate_append_id(unknown) is False, unknown
    assert client.stats(sid) == {"status": {"ok": False, "error": "no log found for append_id"}}  # never counted
    assert client.stats(sid, "__preflight__") == {"status": {"ok": False, "error": "no log for __preflight__"}}


def test_interaction_error_strings(client: ReferenceClient):
    sid = client.mint()
    for payload, error in (
        ({"append_id": "0" * 32, "task_id": TASK, "question": "q"}, "invalid append_id"),
        ({"task_id": TASK, "question": "q"}, "invalid append_id"),
        ({"append_id": sid, "task_id": TASK}, "missing task_id/question"),
        ({"append_id": sid, "question": "q"}, "missing task_id/question"),
        ({"append_id": sid, "task_id": "realcode@999", "question": "q"}, "no prd for realcode@999"),
    ):
        assert client.post("interaction", payload) == {"data": "", "status": {"ok": False, "error": error}}, payload


def test_stats_error_strings(client: ReferenceClient):
    sid = client.mint()
    client.ask(sid, TASK, CYCLES)
    for payload, error in (
        ({}, "missing append_id"),
        ({"append_id": ""}, "missing append_id"),
        ({"append_id": "xyz"}, "invalid append_id format"),
        ({"append_id": sid.upper()}, "invalid append_id format"),
        ({"append_id": sid + "0"}, "invalid append_id format"),
        ({"append_id": 12345}, "invalid append_id format"),
        ({"append_id": "f" * 32}, "no log found for append_id"),
        ({"append_id": "f" * 32, "task_id": TASK}, f"no log for {TASK}"),
        ({"append_id": sid, "task_id": "builtin/unidiff"}, "no log for builtin/unidiff"),  # nobody asked: no zeros
        ({"append_id": sid, "task_id": "no-such-task"}, "no log for no-such-task"),
    ):
        assert client.post("stats", payload) == {"status": {"ok": False, "error": error}}, payload


def test_per_task_stats_round_to_one_decimal_and_sort_triggers(client: ReferenceClient):
    records = [c.constraint_id for c in load_task(TASK).user_agent_data("L1").hidden_constraints]
    sid = client.mint(model="agent-x", max_interactions=3)
    assert client.ask(sid, "dep-resolver", CACHE)["status"]["internal_log"]["triggers_hit"] == ["C006"]
    assert client.ask(sid, TASK, CYCLES)["status"]["internal_log"]["triggers_hit"] == ["C004"]
    two = client.stats_ok(sid, TASK)
    assert (two["budget_usage_rate"], two["fallback_rate"], two["triggers_hit"]) == (66.7, 0.0, ["C004", "C006"])
    client.ask(sid, TASK, OFF_TOPIC)
    stats = client.stats_ok(sid, "dep-resolver")  # any spelling of the task
    assert stats == {
        "task_id": TASK,
        "model": "agent-x",
        "turns_used": 3,
        "max_interactions": 3,
        "budget_usage_rate": 100.0,
        "fallbacks": 1,
        "fallback_rate": 33.3,
        "triggers_hit": ["C004", "C006"],
        "total_constraints": len(records),
        "constraint_coverage": round(200 / len(records), 1),
        "missed_constraints": [r for r in records if r not in ("C004", "C006")],
        "interaction_score": 0,
    }


def test_aggregate_stats_carry_repos_sums_means_and_per_repo(client: ReferenceClient):
    sid = client.mint(max_interactions=4)
    defensive = client.ask(sid, TASK, "how are cycles reported? I assume as an error line.")
    assert defensive["status"]["internal_log"]["score_adjustment"] == 1, defensive
    client.ask(sid, TASK, OFF_TOPIC)
    client.ask(sid, "unidiff", OFF_TOPIC)
    first, second = client.stats_ok(sid, TASK), client.stats_ok(sid, "builtin/unidiff")
    assert (first["interaction_score"], second["interaction_score"]) == (1, 0)
    overall = client.stats_ok(sid)
    assert overall == {
        "append_id": sid,
        "model": "agent-x",
        "repos": 2,
        "turns_used": 3,
        "max_interactions": 4,
        "budget_usage_rate": round((50.0 + 25.0) / 2, 1),
        "fallbacks": 2,
        "fallback_rate": round((50.0 + 100.0) / 2, 1),
        "constraint_coverage": round((first["constraint_coverage"] + second["constraint_coverage"]) / 2, 1),
        "interaction_score": 1,
        "per_repo": {TASK: first, "builtin/unidiff": second},
    }


def test_reference_example_client_reads_the_aggregate(client: ReferenceClient):
    sid = client.mint(model="Gemini-3.5-Flash", max_interactions=16, difficulty="medium")
    client.ask(sid, TASK, OFF_TOPIC)
    s = client.stats_ok(sid)
    line = f"{s['repos']} {s['budget_usage_rate']}% {s['fallback_rate']}% {s['constraint_coverage']}%"
    assert line == "1 6.2% 100.0% 0.0%" and f"{s['interaction_score']:+d}" == "+0"


def chunks(payload: dict, size: int = 7):
    data = json.dumps(payload).encode()
    yield from (data[i : i + size] for i in range(0, len(data), size))


def test_chunked_requests_are_answered(client: ReferenceClient):
    status, _, raw = http_post(
        client.ports["init"], chunks({"key": PUBLISHED_KEY, "model": "node", "max_interactions": 2}), chunked=True
    )
    assert status == 200
    sid = json.loads(raw)["append_id"]
    question = {"append_id": sid, "task_id": TASK, "question": CYCLES}
    status, _, raw = http_post(client.ports["interaction"], chunks(question), chunked=True)
    assert status == 200 and json.loads(raw)["status"]["internal_log"]["triggers_hit"] == ["C004"]
    status, _, raw = http_post(client.ports["stats"], chunks({"append_id": sid}), chunked=True)
    assert status == 200 and json.loads(raw)["stats"]["turns_used"] == 1


def raw_request(port: int, request: bytes) -> tuple[int, dict]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        response = b""
        while chunk := sock.recv(65536):
            response += chunk
    head, _, body = response.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body) if body else {}


def test_chunk_extensions_and_trailers_as_node_may_send_them(client: ReferenceClient):
    body = json.dumps({"key": PUBLISHED_KEY, "model": "node"}).encode()
    request = (
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + b"%x;ext=1\r\n%s\r\n" % (10, body[:10])
        + b"%x\r\n%s\r\n" % (len(body) - 10, body[10:])
        + b"0\r\nX-Trailer: y\r\n\r\n"
    )
    status, answer = raw_request(client.ports["init"], request)
    assert status == 200 and answer["status"]["ok"] is True


@pytest.mark.parametrize(
    ("framing", "status"),
    [
        (b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", 400),
        (b"Transfer-Encoding: chunked\r\n\r\n10\r\n{}\r\n0\r\n\r\n", 400),
        (b"Transfer-Encoding: gzip\r\n\r\n", 501),
        (b"Transfer-Encoding: chunked\r\n\r\n200000\r\n", 413),
    ],
)
def test_bad_chunked_framing(client: ReferenceClient, framing: bytes, status: int):
    code, answer = raw_request(client.ports["stats"], b"POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + framing)
    assert code == status and answer["status"]["ok"] is False


@pytest.mark.parametrize("method", ["GET", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_other_methods_get_405(client: ReferenceClient, method: str):
    for endpoint, port in client.ports.items():
        status, headers, raw = http_post(port, b"{}", method=method)
        assert status == 405 and headers["Allow"] == "POST", endpoint
        if method != "HEAD":
            assert json.loads(raw)["status"]["ok"] is False


@pytest.mark.parametrize("method", ["POST", "GET"])
@pytest.mark.parametrize("path", ["/init", "/v1/", "/index.html", "/stats/x"])
def test_other_paths_get_404(client: ReferenceClient, method: str, path: str):
    status, _, raw = http_post(client.ports["init"], b"{}", method=method, path=path)
    assert status == 404 and json.loads(raw)["status"]["ok"] is False


def test_a_query_string_still_reaches_root(client: ReferenceClient):
    status, _, raw = http_post(client.ports["stats"], b'{"append_id": ""}', path="/?x=1")
    assert status == 200 and json.loads(raw)["status"]["error"] == "missing append_id"


def test_proposed_defaults_score_only_with_a_hit():
    assert proposes_default("Should empty lines be excluded from the calculation?")
    assert proposes_default("I assume cycles are errors - ok?") and proposes_default("is it ok if I default to 0")
    assert not proposes_default("How are cycles reported?") and not proposes_default("What should I do?")
    asked = turn_entry(1, 2, "Should cycles be errors?", "...", [], fallback=True)
    assert asked["score_adjustment"] == 0  # no record hit: nothing confirmed, no bonus


def test_task_stats_rounding_is_python_round_to_one_decimal():
    log = TaskLog("t", "L1", tuple(f"C{i}" for i in range(7)))
    log.turns += [turn_entry(i, 0, "q", "a", ["C3"] if i else ["C5", "C1"], fallback=i > 3) for i in range(6)]
    stats = task_stats(log, model="m", max_interactions=7)
    assert stats["budget_usage_rate"] == round(600 / 7, 1) == 85.7
    assert stats["fallback_rate"] == round(200 / 6, 1) == 33.3
    assert stats["constraint_coverage"] == round(300 / 7, 1) == 42.9
    assert stats["triggers_hit"] == ["C1", "C3", "C5"] and stats["missed_constraints"] == ["C0", "C2", "C4", "C6"]
    empty = task_stats(TaskLog("t", "L3", ()), model="m", max_interactions=0)
    assert (empty["constraint_coverage"], empty["budget_usage_rate"], empty["fallback_rate"]) == (None, 0.0, 0.0)


def test_a_refused_body_reaches_no_session(tmp_path: Path):
    with OracleService(state_dir=tmp_path / "state") as service, OracleServer(service, ports=(0, 0, 0)) as server:
        status, _, _ = http_post(server.ports[0], b"[1, 2]")
        assert status == 400
        assert not list((tmp_path / "state" / "sessions").iterdir())
