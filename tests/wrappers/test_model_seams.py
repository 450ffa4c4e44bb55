"""What real model servers need: schemas without bounds, "" content with tool calls, a transcript that fits."""

from __future__ import annotations

import json

import pytest
from openai_stub import request_problems

from icae_env.envs.clarify import ClarifyEnv
from icae_env.errors import ArgumentError, ArgumentTypeError
from icae_env.llm_http import estimate_tokens
from icae_env.wrappers import ChatObservations, Messages, TextActions, tool_schemas
from icae_env.wrappers.chat_observations import ELIDED

TOOLS = ("ask", "submit")
TASK = "builtin/dep-resolver"
BOUNDS = {"maxLength", "minLength", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"}


def keys(schema) -> set[str]:
    if isinstance(schema, dict):
        return set(schema) | {k for v in schema.values() for k in keys(v)}
    if isinstance(schema, list):
        return {k for v in schema for k in keys(v)}
    return set()


def make(**options) -> ChatObservations:
    return ChatObservations(TextActions(ClarifyEnv(task=TASK, budget=8), tools=TOOLS), tools=TOOLS, **options)


def call(call_id: str, name: str, **arguments) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_tool_schemas_carry_no_bounds_that_crash_grammar_servers():
    schemas = tool_schemas()
    assert not keys(schemas) & BOUNDS
    assert "5000000" not in json.dumps(schemas) and "100000" not in json.dumps(schemas)
    view = next(d for d in schemas if d["function"]["name"] == "view")["function"]["parameters"]
    assert view["properties"]["range"]["items"] == {"type": "integer"}  # structure stays


@pytest.mark.parametrize(("option", "expected"), [({}, ""), ({"tool_content": None}, None)])
def test_assistant_tool_call_messages_have_empty_content_unless_null_is_asked_for(option, expected):
    env = make(**option)
    env.reset(seed=0)
    env.step({"tool": "ask", "question": "how are cycles reported?"})  # an action dict: shown as a tool call
    messages, *_ = env.step({"role": "assistant", "content": None, "tool_calls": [call("c9", "submit")]})
    assistants = [m for m in messages if m["role"] == "assistant"]
    assert [m["content"] for m in assistants] == [expected, expected]
    assert messages in env.observation_space and messages in Messages()
    assert request_problems({"model": "m", "messages": messages}) == []


def test_tool_content_and_context_settings_are_checked():
    with pytest.raises(ArgumentError, match="tool_content must be '' or None"):
        make(tool_content="null")
    with pytest.raises(ArgumentError, match="context_tokens must be None or an int >= 1"):
        make(context_tokens=0)
    with pytest.raises(ArgumentError, match="reserve_tokens .* must be below context_tokens"):
        make(context_tokens=100, reserve_tokens=100)
    with pytest.raises(ArgumentTypeError, match="count_tokens must be callable"):
        make(context_tokens=100, count_tokens=3)


def ask_a_lot(env: ChatObservations, n: int) -> tuple[list[dict], dict]:
    messages, info = env.reset(seed=0)
    for i in range(n):
        messages, _, _, _, info = env.step(f"<ask>How are cycles reported, case {i}?</ask>")
    return messages, info


def test_without_a_budget_nothing_is_elided():
    env = make()
    messages, info = ask_a_lot(env, 6)
    assert info["elided"] == 0 and messages == env.transcript and len(messages) == 14


def test_old_outputs_are_elided_first_and_the_system_prompt_and_task_never():
    full_env = make()
    full, _ = ask_a_lot(full_env, 6)
    head = estimate_tokens(full[:2])
    budget = head + (estimate_tokens(full) - head) // 2  # room for about half of the episode
    env = make(context_tokens=budget + 50, reserve_tokens=50)
    messages, info = ask_a_lot(env, 6)
    assert estimate_tokens(messages) <= budget
    assert messages[:2] == full[:2]  # the system prompt and the task, untouched
    results = [i for i, m in enumerate(messages) if i >= 2 and m["role"] in ("tool", "user")]
    elided = [i for i in results if messages[i]["content"].startswith("[output elided")]
    assert info["elided"] == env.elided == len(elided) > 0
    assert elided == results[: len(elided)], "the oldest outputs go first"
    first = elided[0]
    assert messages[first]["content"] == ELIDED.format(n=len(full[first]["content"]))
    assert messages[-1] == full[-1]  # the newest result is whole
    assert [m for m in messages if m["role"] == "assistant"] == [m for m in full if m["role"] == "assistant"]
    assert env.transcript == full  # the transcript keeps everything


def test_an_injected_counter_decides_and_the_newest_output_is_cut_last():
    def count(messages) -> int:
        counted.append(len(messages))
        return sum(len(m.get("content") or "") for m in messages)  # one token per character

    counted: list[int] = []
    messages = [
        {"role": "system", "content": "s" * 100},
        {"role": "user", "content": "the task " * 20},
        {"role": "assistant", "content": "<bash>cat a</bash>"},
        {"role": "user", "content": "a" * 1000},
        {"role": "assistant", "content": "<bash>cat b</bash>"},
        {"role": "user", "content": "b" * 1000},
    ]
    env = make(context_tokens=1010, reserve_tokens=10, count_tokens=count)
    fitted = env.fit([dict(m) for m in messages])
    assert counted and count(fitted) <= 1000 and env.elided == 2
    assert fitted[:3] == messages[:3] and fitted[4] == messages[4]
    assert fitted[3]["content"] == ELIDED.format(n=1000)  # the older output: gone
    newest = fitted[5]["content"]  # the newest: cut in the middle, both ends kept
    assert newest.startswith("bbb") and newest.endswith("bbb") and "[output elided to fit the context:" in newest


def test_long_arguments_of_older_assistant_messages_are_elided_after_the_outputs():
    probe = make()
    head = estimate_tokens(probe.reset(seed=0)[0])
    env = make(context_tokens=head + 600, reserve_tokens=10)  # the question alone is about 1,200 tokens
    env.reset(seed=0)
    question = "Is this " + "very " * 700 + "long?"
    env.step({"role": "assistant", "content": None, "tool_calls": [call("c1", "ask", question=question)]})
    messages, _, _, _, info = env.step("<ask>And the cycle format?</ask>")
    arguments = json.loads(messages[2]["tool_calls"][0]["function"]["arguments"])
    assert arguments["question"] == ELIDED.format(n=len(question)) and info["elided"] >= 1
    assert request_problems({"model": "m", "messages": messages}) == []
