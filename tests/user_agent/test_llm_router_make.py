"""The ``llm`` router chosen through ``icae_env.make`` and the Oracle server, against a loopback chat server."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from chat_server import ChatServer, chat_server, completion

import icae_env
from icae_env.errors import ConfigError, IcaeEnvError
from icae_env.serve.oracle import OracleService
from icae_env.tasks import load_task
from icae_env.user_agent.grounded import RouterOptionError, make_router
from icae_env.user_agent.optional.endpoint import EndpointConfigError

TASK = "builtin/dep-resolver"
OPENAI_VARS = ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY")


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def careful_model(body: dict[str, Any]) -> tuple[int, bytes]:
    """Answer like a careful model: the records one of whose triggers is the question."""
    user = body["messages"][-1]["content"]
    question = _norm(user.rsplit("Question:", 1)[1])
    ids = []
    for line in user.splitlines():
        found = re.match(r"^(\S+) \[[^\]]*\] triggers: (\[.*?\]) summary:", line)
        if found and question in {_norm(t) for t in json.loads(found.group(2))}:
            ids.append(found.group(1))
    return completion(json.dumps({"ids": ids}))


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch) -> None:
    for name in OPENAI_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with chat_server(careful_model) as running:
        yield running


def _trigger(record_id: str) -> str:
    data = load_task(TASK).user_agent_data("L1")
    return next(r for r in data.hidden_constraints if r.constraint_id == record_id).trigger_keywords[0]


def test_make_with_router_options_answers_from_the_model(server) -> None:
    options = {"base_url": server.base_url, "model": "m1", "api_key": "sk-test"}
    env = icae_env.make("icae/Clarify-v0", task=TASK, router="llm", router_options=options)
    try:
        _, info = env.reset(seed=0)
        assert info["router_errors"] == 0
        _, reward, _, _, info = env.step(_trigger("C004"))
    finally:
        env.close()
    assert info["recovered"] == ("C004",) and float(reward) > 0 and not info["fallback"]
    assert info["router_errors"] == 0
    (request,) = server.requests
    assert request["body"]["model"] == "m1" and request["headers"]["Authorization"] == "Bearer sk-test"


@pytest.mark.parametrize(
    "bad",
    [
        lambda body: completion("I think it is C004."),  # prose, no JSON
        lambda body: completion('{"ids": ["NOPE", "C999"]}'),  # only ids the task does not have
        lambda body: completion('{"ids": [4]}'),  # ids that are not strings
        lambda body: (200, b"not json at all"),  # not a chat completion
        lambda body: (500, b'{"error": {"message": "overloaded"}}'),  # the server fails
    ],
)
def test_a_malformed_or_failed_reply_falls_back_and_is_counted(bad) -> None:
    with chat_server(bad) as server:
        options = {"base_url": server.base_url, "model": "m1"}
        env = icae_env.make("icae/Clarify-v0", task=TASK, router="llm", router_options=options)
        try:
            env.reset(seed=0)
            question = _trigger("C004")
            obs, reward, terminated, _, info = env.step(question)  # never raises
            assert info["fallback"] and info["recovered"] == () and info["router_errors"] == 1
            assert obs["output"] == load_task(TASK).user_agent_data("L1").fallback_response
            server.answer = careful_model  # the endpoint recovers: the same question is asked again, not memoised
            _, _, _, _, info = env.step(question)
            assert info["recovered"] == ("C004",) and info["router_errors"] == 1
            env.reset(seed=1)
            assert env.step("how are cycles reported?")[4]["router_errors"] == 0  # counted per episode
        finally:
            env.close()
    assert len(server.requests) >= 2


def test_project_build_step_survives_an_unreachable_endpoint() -> None:
    options = {"base_url": "http://127.0.0.1:9/v1", "model": "m1", "timeout": 2}
    env = icae_env.make("icae/ProjectBuild-v0", task=TASK, router="llm", router_options=options)
    try:
        env.reset(seed=0)
        _, _, terminated, _, info = env.step({"tool": "ask", "question": _trigger("C004")})
    finally:
        env.close()
    assert info["fallback"] and info["router_errors"] == 1 and not terminated


def test_openai_variables_stand_in_for_unset_options(server, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    env = icae_env.make("icae/Clarify-v0", task=TASK, router="llm")
    try:
        env.reset(seed=0)
        assert env.step(_trigger("C004"))[4]["recovered"] == ("C004",)
    finally:
        env.close()
    (request,) = server.requests
    assert request["body"]["model"] == "env-model" and request["headers"]["Authorization"] == "Bearer sk-env"
    env = icae_env.make("icae/Clarify-v0", task=TASK, router="llm", router_options={"model": "explicit"})
    try:
        env.reset(seed=0)
        env.step(_trigger("C004"))
    finally:
        env.close()
    assert server.requests[-1]["body"]["model"] == "explicit"  # an option wins over its variable


def test_a_missing_endpoint_is_a_typed_error_naming_option_and_variable() -> None:
    with pytest.raises(EndpointConfigError) as caught:
        icae_env.make("icae/Clarify-v0", task=TASK, router="llm")
    message = str(caught.value)
    assert all(word in message for word in ("base_url", "OPENAI_BASE_URL", "model", "OPENAI_MODEL"))
    assert isinstance(caught.value, ConfigError) and isinstance(caught.value, IcaeEnvError)
    with pytest.raises(EndpointConfigError, match="'model' \\(or set OPENAI_MODEL\\)"):
        icae_env.make("icae/ProjectBuild-v0", task=TASK, router="llm", router_options={"base_url": "http://h/v1"})


def test_unknown_router_options_name_the_router_and_the_accepted_keys(server) -> None:
    with pytest.raises(RouterOptionError) as caught:
        icae_env.make("icae/Clarify-v0", task=TASK, router="llm", router_options={"base_url": "x", "modle": "m"})
    assert "'llm'" in str(caught.value) and "'modle'" in str(caught.value) and "'model'" in str(caught.value)
    assert isinstance(caught.value, IcaeEnvError)
    with pytest.raises(RouterOptionError, match="router 'lexical' takes no option 'base_url'"):
        icae_env.make("icae/Clarify-v0", task=TASK, router="lexical", router_options={"base_url": server.base_url})
    with pytest.raises(RouterOptionError):
        make_router("lexical", (), model="m")
    with pytest.raises(ValueError, match="on_error"):
        icae_env.make(
            "icae/Clarify-v0", task=TASK, router="llm",
            router_options={"base_url": server.base_url, "model": "m", "on_error": "ignore"},
        )  # fmt: skip


def test_the_oracle_service_counts_router_fallbacks() -> None:
    answers = iter([(500, b"{}"), completion('{"ids": ["C004"]}')])
    with chat_server(lambda body: next(answers)) as server:
        options = {"base_url": server.base_url, "model": "m1"}
        with OracleService(router="llm", router_options=options, allow_keyless=True) as service:
            append_id = service.init({"model": "agent"})["append_id"]
            ask = {"append_id": append_id, "task_id": "dep-resolver", "question": "how are cycles reported?"}
            first = service.interaction(ask)
            assert first["status"]["ok"] and first["status"]["internal_log"]["fallback_triggered"]
            assert service.router_fallbacks == 1
            second = service.interaction(ask)
            assert second["status"]["internal_log"]["triggers_hit"] == ["C004"]
    with pytest.raises(EndpointConfigError):
        OracleService(router="llm")
