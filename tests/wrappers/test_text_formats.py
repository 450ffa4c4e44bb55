"""The format table of ``TextActions``: every row parses, reasoning is ignored, and model outputs replay on an env."""

from __future__ import annotations

import doctest
from pathlib import Path

import gymnasium
import pytest
from text_format_outputs import ASK, EDIT, FORMATS, GREET, GREETING, RUN, SUBMIT, VIEW, WRITE

import icae_env
import icae_env.wrappers.text_calls
import icae_env.wrappers.text_formats
import icae_env.wrappers.text_parsing
import icae_env.wrappers.text_reasoning
from icae_env.wrappers import TextActionError, TextActions, parse_text_action
from icae_env.wrappers.text_formats import SYNTAXES
from icae_env.wrappers.text_reasoning import REASONING

DOCS = Path(__file__).resolve().parents[2] / "docs" / "text-actions.md"
CASES = [
    pytest.param(out, action, id=f"{name}-{i}")
    for name, turns in FORMATS.items()
    for i, (out, action) in enumerate(turns)
]


def error_of(raw, **kwargs) -> TextActionError:
    with pytest.raises(TextActionError) as caught:
        parse_text_action(raw, **kwargs)
    assert caught.value.hint, "every error carries a hint"
    return caught.value


def docstring_formats() -> list[str]:
    lines = (icae_env.wrappers.text_parsing.__doc__ or "").splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith("=" * 18 + "  ")]
    body = lines[rules[1] + 1 : rules[2]]  # between the header's rule and the closing rule
    return [line[:18].strip() for line in body if line[:18].strip()]


def docs_formats() -> list[str]:
    rows = [line for line in DOCS.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]
    start = rows.index(next(r for r in rows if r.startswith("| Format |"))) + 1
    names = []
    for row in rows[start:]:
        if row.startswith("| Library"):
            break
        names.append(row.split(" | ")[0].removeprefix("| "))
    return names


def test_the_table_is_one_table_and_every_row_has_cases():
    assert docstring_formats() == docs_formats() == list(FORMATS)
    assert all(len(turns) >= 2 for turns in FORMATS.values())
    assert {s.name for s in SYNTAXES} <= set(FORMATS), "every code row is a row of the table"


@pytest.mark.parametrize(("output", "action"), CASES)
def test_a_realistic_output_of_every_format_parses_to_its_action(output, action):
    assert parse_text_action(output) == action


# -- reasoning -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", REASONING, ids=[r.opener for r in REASONING])
def test_every_reasoning_block_is_ignored_and_an_unclosed_one_runs_nothing(kind):
    considered = "Maybe <bash>rm -rf build</bash>, or\n```bash\nmake clean\n```\nno: list first."
    closed = f"{kind.opener}\n{considered}\n{kind.closers[0]}\n\nListing files.\n<bash>ls</bash>"
    assert parse_text_action(closed) == {"tool": "bash", "command": "ls"}
    error = error_of(f"{kind.opener}\n{considered} Then <bash>ls</bash>")  # cut at max_tokens
    assert error.message.startswith(f"the reasoning block {kind.opener} is not closed, so nothing")
    assert kind.closers[0] in error.hint


def test_a_block_opened_by_the_chat_template_ends_at_its_closer():
    assert parse_text_action("I may <bash>rm x</bash>.\n</think>\n<bash>ls</bash>") == {"tool": "bash", "command": "ls"}
    assert parse_text_action("plan</seed:think><submit/>") == {"tool": "submit"}
    error = error_of("First <bash>rm -rf /tmp/x</bash> then", prefix="<think>\n")
    assert error.message.startswith("the reasoning block <think> is not closed")
    assert parse_text_action("plan</think><submit/>", prefix="<think>\n") == {"tool": "submit"}


def test_reasoning_counts_only_before_the_first_call():
    content = "Models write <think>...</think> first.\n"
    action = parse_text_action(f'<write_file path="notes.md">\n{content}</write_file>')
    assert action == {"tool": "write_file", "path": "notes.md", "content": content}
    done = parse_text_action("<bash>ls</bash>\n<think>next I will")  # cut after the call: the call stands
    assert done == {"tool": "bash", "command": "ls"}
    assert error_of("<think>only thinking</think>\n").message == "the message has reasoning but no tool call after it"


def test_the_issue_messages_that_counted_two_calls_now_give_one():
    harmony = (
        "<|channel|>analysis<|message|>I could write <bash>ls</bash> here.<|end|><|start|>assistant<|channel|>"
        'commentary to=functions.bash <|constrain|>json<|message|>{"command": "ls"}<|call|>'
    )
    think = '<think>Use <tool_call>{"name": "submit", "arguments": {}}</tool_call>? Not yet.</think><bash>ls</bash>'
    assert parse_text_action(harmony) == parse_text_action(think) == {"tool": "bash", "command": "ls"}


# -- several calls, unclosed calls, bad payloads -------------------------------------------------------------------

TWO_CALLS = {
    "Hermes": '<tool_call>{"name": "bash", "arguments": {}}</tool_call><tool_call>{"name": "ask"}</tool_call>',
    "Qwen3-Coder": "<function=bash>\n</function><function=ask>\n</function>",
    "GLM-4.5": "<tool_call>bash</tool_call>\n<tool_call>ask</tool_call>",
    "Anthropic": '<function_calls><invoke name="bash"></invoke><invoke name="ask"></invoke></function_calls>',
    "DeepSeek V3": "<｜tool▁call▁begin｜>bash<｜tool▁sep｜>{}<｜tool▁call▁end｜>"
    "<｜tool▁call▁begin｜>ask<｜tool▁sep｜>{}<｜tool▁call▁end｜>",
    "Kimi K2": "<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
    "<|tool_call_begin|>functions.ask:1<|tool_call_argument_begin|>{}<|tool_call_end|>",
    "harmony": "<|start|>assistant to=functions.bash<|channel|>commentary<|message|>{}<|call|>"
    "<|start|>assistant to=functions.ask<|channel|>commentary<|message|>{}<|call|>",
    "Mistral": "[TOOL_CALLS]bash[ARGS]{}[TOOL_CALLS]ask[ARGS]{}",
    "Mistral before v11": '[TOOL_CALLS] [{"name": "bash", "arguments": {}}, {"name": "ask", "arguments": {}}]',
    "Llama 3": '<|python_tag|>{"name": "bash", "parameters": {}}; {"name": "ask", "parameters": {}}',
    "Llama 4": "[bash(command='ls'), ask(question='why')]",
    "Granite 3": '<|tool_call|>[{"name": "bash", "arguments": {}}, {"name": "ask", "arguments": {}}]',
    "Gemma 4": "<|tool_call>call:bash{}<tool_call|><|tool_call>call:ask{}<tool_call|>",
    "mixed": '<bash>ls</bash>\n[TOOL_CALLS]ask[ARGS]{"question": "why"}',
}


@pytest.mark.parametrize("output", TWO_CALLS.values(), ids=list(TWO_CALLS))
def test_two_calls_in_any_syntax_are_refused(output):
    error = error_of(output)
    assert error.message == "the message has 2 tool calls (bash, ask); send exactly one per message"


@pytest.mark.parametrize(
    ("output", "message"),
    [
        (
            "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=content>\nx = 1",
            "the Qwen3-Coder call to 'write_file' is not closed",
        ),
        ("<tool_call>bash<arg_key>command</arg_key><arg_value>ls</arg_value>", "the GLM-4.5 call to 'bash' is not"),
        ('<invoke name="bash"><parameter name="command">ls</parameter>', "the Anthropic call to 'bash' is not closed"),
        ("<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{", "the Kimi K2 call to 'bash' is not"),
        ('<tool_call>{"name": "bash"', "the Hermes call is not closed"),
    ],
)
def test_a_call_cut_before_its_end_is_not_run(output, message):
    error = error_of(output)
    assert error.message.startswith(message) and "token limit" in error.message
    assert "closing tag" in error.hint


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ('[TOOL_CALLS]bash[ARGS]{"command": "ls"', "malformed tool call: the Mistral call to 'bash' does not parse"),
        ("<|python_tag|>{'name': 'bash'}", "malformed tool call: the Llama 3 call does not parse (Expecting"),
        ("<|python_start|>[bash(command=open('x'))]<|python_end|>", "the Llama 4 call does not parse (expected a list"),
        (
            "<｜tool▁call▁begin｜>bash<｜tool▁sep｜>[1]<｜tool▁call▁end｜>",
            "the arguments of 'bash' must be a JSON object",
        ),
        ("<|tool_call>call:deploy{}<tool_call|>", "unknown tool 'deploy'; available tools: bash"),
        (
            '<invoke name="bash"><parameter name="command">ls</parameter><parameter name="cwd">/</parameter></invoke>',
            "bash: cwd: unknown field",
        ),
    ],
)
def test_bad_payloads_are_named(output, message):
    assert message in error_of(output).message


def test_string_parameters_stay_text_and_the_others_are_json():
    qwen = "<function=bash><parameter=command>\n[1, 2]\n</parameter><parameter=timeout>\n2.5\n</parameter></function>"
    assert parse_text_action(qwen) == {"tool": "bash", "command": "[1, 2]", "timeout": 2.5}
    glm = "<tool_call>view<arg_key>path</arg_key><arg_value>42</arg_value><arg_key>range</arg_key><arg_value>1,2"
    assert parse_text_action(glm + "</arg_value></tool_call>") == {"tool": "view", "path": "42", "range": [1, 2]}


@pytest.mark.parametrize(
    "raw",
    [
        "<function=bash>" * 100_000,
        "<function=bash>" + "<parameter=command>" * 100_000 + "</function>",
        "<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>" * 50_000,
        "to=functions.bash " * 100_000 + "<|message|>",
        "<think>x</think>" * 50_000 + "<bash>ls</bash>",
        "<|channel|>analysis<|message|>x<|end|>" * 50_000 + "<bash>ls</bash>",
        "</think>" * 100_000,
        "<tool_call>bash" * 100_000,
        '<|tool_call>call:bash{k:<|"|>' * 50_000,
        "[TOOL_CALLS]a" * 100_000,
    ],
    ids=["function", "parameter", "kimi", "harmony", "think", "analysis", "close", "glm", "gemma", "mistral"],
)
def test_pathological_native_messages_are_answered_in_linear_time(raw):
    """A quadratic scan of these would not finish within the suite's time-out."""
    try:
        parse_text_action(raw)
    except TextActionError as error:
        assert error.message


@pytest.mark.parametrize(
    "module",
    [
        icae_env.wrappers.text_calls,
        icae_env.wrappers.text_formats,
        icae_env.wrappers.text_parsing,
        icae_env.wrappers.text_reasoning,
    ],
)
def test_doctests_pass(module):
    result = doctest.testmod(module, raise_on_error=False)
    assert result.attempted > 0 and result.failed == 0


def test_the_prefix_is_checked_and_recorded():
    with pytest.raises(TypeError, match="prefix must be a str, got int"):
        TextActions(gymnasium.make("icae/Clarify-v0"), prefix=1)
    environment = TextActions(gymnasium.make("icae/Clarify-v0"), tools=("ask", "submit"), prefix="<think>\n")
    assert gymnasium.make(environment.spec).prefix == "<think>\n"


# -- replay on the env ---------------------------------------------------------------------------------------------


def check_step(action: dict, step: tuple) -> None:
    obs, _, terminated, _, info = step
    assert (info["action_error"], info["tool"]) == (None, action["tool"]), obs["output"]
    output = obs["output"]
    if action == WRITE:
        assert output == f"Wrote {len(GREET)} characters to greet.py"
    elif action["tool"] == "bash":
        assert (output, obs["exit_code"]) == ("greet.py\n" + GREETING, 0)
        assert action in (RUN, {**RUN, "timeout": 30.0})
    elif action == VIEW:
        assert output == "".join(f"{i:6}\t{line}\n" for i, line in enumerate(GREET.splitlines(), 1))
    elif action == EDIT:
        assert output == "Replaced 1 occurrence in greet.py"
    elif action == ASK:
        assert "summary" in output and obs["questions_left"] == 15
    else:
        assert action == SUBMIT and terminated and info["score"] is not None


@pytest.mark.parametrize("name", list(FORMATS))
def test_model_outputs_replay_on_project_build(name):
    """Each format's turns are one short episode: write greet.py, run it, then view, edit, ask or submit."""
    env = TextActions(icae_env.make("icae/ProjectBuild-v0", task="builtin/unidiff"))
    try:
        env.reset(seed=0)
        for output, action in FORMATS[name]:
            check_step(action, env.step(output))
            if action == EDIT:
                assert env.step("<bash>python3 greet.py</bash>")[0]["output"] == "hello, there <3\n"
    finally:
        env.close()
