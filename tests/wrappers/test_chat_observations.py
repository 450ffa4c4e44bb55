"""``ChatObservations``: transcript shape, OpenAI validity, round trip, the tool schema, argument checks."""

from __future__ import annotations

import copy
import doctest
import json

import gymnasium
import pytest
from openai_stub import request_problems

import icae_env
import icae_env.wrappers.chat_observations
import icae_env.wrappers.tool_schema
from icae_env.envs.clarify import ClarifyEnv
from icae_env.wrappers import TOOL_NAMES, ChatObservations, Messages, TextActions, assistant_turns, tool_schemas

TOOLS = ("ask", "submit")
TASK = "builtin/dep-resolver"


def make(budget: int = 6) -> ChatObservations:
    return ChatObservations(TextActions(ClarifyEnv(task=TASK, budget=budget), tools=TOOLS), tools=TOOLS)


def call(call_id: str, name: str, **arguments) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


ACTIONS = [
    {
        "role": "assistant",
        "content": "Let me ask.",
        "tool_calls": [call("call_a", "ask", question="how are cycles reported")],
    },
    "<ask>what is the weather like today?</ask>",
    {"tool": "ask", "question": "what is the cycle error format"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [call("x1", "ask", question="a"), call("x2", "ask", question="b")],
    },
    b"<ask>caf\xe9</ask>",
    {"role": "assistant", "content": None},
    {"role": "assistant", "content": None, "tool_calls": [call("call_z", "submit")]},
]


def run(env: ChatObservations, actions: list) -> list[list[dict]]:
    observations = [env.reset(seed=0)[0]]
    for action in actions:
        observations.append(env.step(action)[0])
    return observations


def test_the_transcript_has_one_message_per_event():
    env = make()
    observations = run(env, ACTIONS)
    messages = observations[-1]
    assert [m["role"] for m in messages] == [
        "system", "user",
        "assistant", "tool",
        "assistant", "user",
        "assistant", "tool",
        "assistant", "tool", "tool",
        "assistant", "user",
        "assistant", "user",
        "assistant", "tool",
    ]  # fmt: skip
    assert messages[1]["content"] == ClarifyEnv(task=TASK).reset(seed=0)[0]["output"]
    assert messages[2] == ACTIONS[0] and messages[3]["tool_call_id"] == "call_a"
    assert messages[3]["content"].startswith("When a dependency")  # the User Agent's reply
    assert messages[4] == {"role": "assistant", "content": ACTIONS[1]} and messages[5]["role"] == "user"
    synthesized = messages[6]["tool_calls"][0]
    assert synthesized["id"] == "call_1" and json.loads(synthesized["function"]["arguments"]) == {
        "question": "what is the cycle error format"
    }
    assert [m["tool_call_id"] for m in messages[9:11]] == ["x1", "x2"]
    assert all(m["content"].startswith("Action error: the message has 2 tool calls") for m in messages[9:11])
    assert messages[11]["content"] == "<ask>caf\ufffd</ask>" and "not valid UTF-8" in messages[12]["content"]
    assert messages[13] == {"role": "assistant", "content": ""} and "the message is empty" in messages[14]["content"]
    assert messages[-1] == {"role": "tool", "tool_call_id": "call_z", "content": "Stopped asking."}


def test_every_observation_is_a_valid_openai_request_and_a_fresh_copy():
    env = make()
    observations = run(env, ACTIONS)
    for messages in observations:
        assert messages in env.observation_space
        if messages[-1]["role"] != "assistant":
            assert request_problems({"model": "m", "messages": messages, "tools": env.tool_definitions}) == []
    observations[1][0]["content"] = "changed"
    observations[1].append({"role": "user", "content": "x"})
    assert env.transcript[0]["content"] != "changed" and observations[2][0]["content"] != "changed"
    assert len(env.transcript) == len(observations[-1]) == 17
    assert json.loads(json.dumps(observations[-1])) == env.transcript


def test_the_transcript_round_trips():
    """Text and dict actions round-trip (bytes are shown decoded, with U+FFFD for what is not UTF-8)."""
    actions = [a for a in ACTIONS if not isinstance(a, bytes)]
    first = make()
    original = run(first, actions)[-1]
    stored = json.loads(json.dumps(original))
    second = make()
    replayed = run(second, assistant_turns(stored))[-1]
    assert replayed == original
    assert assistant_turns(original)[0] == ACTIONS[0]


def test_a_project_build_transcript_marks_failing_commands(mini_pack):
    env = ChatObservations(TextActions(icae_env.make("icae/ProjectBuild-v0", task=str(mini_pack))))
    try:
        messages, _ = env.reset(seed=0)
        assert "submit()" in messages[1]["content"]  # the env's own intro, PRD first
        assert [d["function"]["name"] for d in env.tool_definitions] == list(TOOL_NAMES)
        messages, *_ = env.step(
            {"role": "assistant", "content": None, "tool_calls": [call("c1", "bash", command="(exit 4)")]}
        )
        assert messages[-1] == {"role": "tool", "tool_call_id": "c1", "content": "\n[exit code: 4]"}
        messages, *_ = env.step("<bash>echo fine</bash>")
        assert messages[-1] == {"role": "user", "content": "fine\n"}
    finally:
        env.close()


def test_tool_schemas_are_openai_function_definitions():
    definitions = tool_schemas()
    assert [d["type"] for d in definitions] == ["function"] * 6
    by_name = {d["function"]["name"]: d["function"] for d in definitions}
    assert by_name["bash"]["parameters"]["required"] == ["command"]
    assert by_name["write_file"]["parameters"]["required"] == ["path", "content"]
    assert by_name["submit"]["parameters"] == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    assert by_name["view"]["parameters"]["properties"]["range"] == {
        "type": "array",
        "items": {"type": "integer"},
        "minItems": 2,
        "maxItems": 2,
        "description": "Optional [first, last] line numbers to show, 1-based and inclusive.",
    }
    assert by_name["bash"]["parameters"]["properties"]["timeout"]["type"] == "number"
    text = json.dumps(definitions)
    assert '"title"' not in text and "prefixItems" not in text and "anyOf" not in text
    assert all(
        f["description"] and all(p["description"] for p in f["parameters"]["properties"].values())
        for f in by_name.values()
    )


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="system_prompt must be a str, got int"):
        ChatObservations(ClarifyEnv(), system_prompt=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tools must name at least one of"):
        ChatObservations(ClarifyEnv(), tools=())
    with pytest.raises(TypeError, match="observations are dicts with 'output'"):
        ChatObservations(gymnasium.make("CartPole-v1"))
    env = ChatObservations(ClarifyEnv(), tools=("ask",), system_prompt="Ask well.\n{tools}")
    assert (
        env.system_prompt.startswith("Ask well.\nCall exactly one tool per message.")
        and "submit" not in env.system_prompt
    )


def test_the_messages_space():
    space = Messages(seed=0)
    sample = space.sample()
    assert sample in space and copy.deepcopy(sample) == sample
    assert space.contains([{"role": "assistant", "content": None, "tool_calls": []}])
    assert not space.contains([{"role": "user", "content": None}]) and not space.contains("text")
    assert space == Messages() and not space.is_np_flattenable


@pytest.mark.parametrize("module", [icae_env.wrappers.chat_observations, icae_env.wrappers.tool_schema])
def test_doctests_pass(module):
    assert doctest.testmod(module, raise_on_error=False).failed == 0
