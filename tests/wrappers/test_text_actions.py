"""``TextActions`` and its parser: every accepted form, every must-show failure, and the wrapper contract."""

from __future__ import annotations

import doctest
import json

import gymnasium
import pytest

import icae_env
import icae_env.wrappers.text_actions
import icae_env.wrappers.text_parsing
import icae_env.wrappers.text_scan
from icae_env.actions import MAX_COMMAND_CHARS, MAX_QUESTION_CHARS, Bash
from icae_env.envs.clarify import ClarifyEnv
from icae_env.wrappers import INVALID_ACTION, TextActionError, TextActions, parse_text_action

CLARIFY_TOOLS = ("ask", "submit")


def call(name: str, arguments, call_id: str = "call_1") -> dict:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def error_of(raw, **kwargs) -> TextActionError:
    with pytest.raises(TextActionError) as caught:
        parse_text_action(raw, **kwargs)
    assert caught.value.hint, "every error carries a hint"
    return caught.value


# -- accepted forms ------------------------------------------------------------------------------------------------

FENCE = "```"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"role": "assistant", "content": None, "tool_calls": [call("bash", {"command": "ls"})]}, {"command": "ls"}),
        (json.dumps({"role": "assistant", "tool_calls": [call("bash", {"command": "ls"})]}), {"command": "ls"}),
        (call("bash", {"command": "ls"}), {"command": "ls"}),
        ('{"name": "bash", "arguments": {"command": "ls"}}', {"command": "ls"}),
        ('{"name": "functions.bash", "parameters": {"command": "ls"}}', {"command": "ls"}),
        ('[{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}]', {"command": "ls"}),
        ({"tool": "bash", "command": "ls"}, {"command": "ls"}),
        (Bash(command="ls"), {"command": "ls"}),
        ("Let me look.\n<bash>ls</bash>", {"command": "ls"}),
        ('<bash timeout="30">\nls\n</bash>', {"command": "ls", "timeout": 30.0}),
        (
            "<tool_call>\n" + json.dumps({"name": "bash", "arguments": {"command": "ls"}}) + "\n</tool_call>",
            {"command": "ls"},
        ),
        (f"Run this:\n{FENCE}bash\nls\n{FENCE}\nthen I will read it.", {"command": "ls"}),
        ("~~~sh\nls\n~~~", {"command": "ls"}),
        (
            f"{FENCE}json\n" + json.dumps({"name": "bash", "arguments": {"command": "ls"}}) + f"\n{FENCE}",
            {"command": "ls"},
        ),
        ({"role": "assistant", "content": "<bash>ls</bash>"}, {"command": "ls"}),
        (
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "<bash>"}, {"type": "text", "text": "ls</bash>"}],
            },
            {"command": "ls"},
        ),
        (b"<bash>ls</bash>", {"command": "ls"}),
    ],
)
def test_every_form_of_a_bash_call_parses(raw, expected):
    assert parse_text_action(raw) == {"tool": "bash", **expected}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            '<write_file path="src/a.py">\nprint(1)\n</write_file>',
            {"tool": "write_file", "path": "src/a.py", "content": "print(1)\n"},
        ),
        (
            "<write_file><path>a.txt</path><content>x</content></write_file>",
            {"tool": "write_file", "path": "a.txt", "content": "x"},
        ),
        (f"{FENCE}write_file path=b.md\n# T\n{FENCE}", {"tool": "write_file", "path": "b.md", "content": "# T\n"}),
        (
            f'<write_file path="README.md">\n{FENCE}bash\nls\n{FENCE}\n</write_file>',
            {"tool": "write_file", "path": "README.md", "content": f"{FENCE}bash\nls\n{FENCE}\n"},
        ),
        (
            '<str_replace path="a.py"><old>x = 1</old><new>x = 2</new></str_replace>',
            {"tool": "str_replace", "path": "a.py", "old": "x = 1", "new": "x = 2"},
        ),
        ('<view path="a.py" range="3, 9"/>', {"tool": "view", "path": "a.py", "range": [3, 9]}),
        ("<view/>", {"tool": "view", "path": "."}),
        ("<ask>What &amp; why?</ask>", {"tool": "ask", "question": "What &amp; why?"}),
        ('<ask question="What &amp; why?"/>', {"tool": "ask", "question": "What & why?"}),
        ("<thinking>done</thinking>\n<submit />", {"tool": "submit"}),
        (f"{FENCE}python\nprint(1)\n{FENCE}\n<submit/>", {"tool": "submit"}),
    ],
)
def test_xml_and_fenced_forms_of_every_tool(raw, expected):
    assert parse_text_action(raw) == expected


def test_large_but_legal_arguments_pass():
    content = "x" * 1_000_000
    assert parse_text_action(call("write_file", {"path": "big.txt", "content": content}))["content"] == content


# -- must-show failures --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            '{"name": "bash", "arguments": {"command": "ls"}',
            r"malformed tool call: invalid JSON \(Expecting ',' delimiter",
        ),
        (call("bash", '{"command": "ls"'), r"the arguments of 'bash' are not valid JSON"),
        (call("bash", "[1, 2]"), r"the arguments of 'bash' must be a JSON object, got list"),
        ({"type": "function", "function": "bash"}, r"'function' must be an object with name and arguments"),
        ({"arguments": {"command": "ls"}}, r"malformed tool call: no tool name \(keys: arguments\)"),
        ({"name": "", "arguments": {}}, r"the tool name must be a non-empty string, got ''"),
        ({"name": 7, "arguments": {}}, r"the tool name must be a non-empty string, got 7"),
        ("[1]", r"malformed tool call: expected a JSON object, got int"),
        ("{" * 100_000, r"invalid JSON \("),
        ("[" * 1_000_000, r"invalid JSON \(nested too deeply\)"),
        ('{"name": "bash", "arguments": {"command": "ls", "timeout": ' + "9" * 5000 + "}}", r"invalid JSON \(Exceeds"),
        (
            call("bash", '{"command": ' + "[" * 100_000 + "}"),
            r"arguments of 'bash' are not valid JSON \(nested too deeply",
        ),
        ('<view path="a" range="' + "1" * 5000 + '"/>', r"view: range"),
        ("<bash></bash>", r"bash: command: Field required"),
        ('<view path="a" range="x"/>', r"view: range"),
        (call("bash", {"command": "ls", "cwd": "/"}), r"bash: cwd: unknown field"),
    ],
)
def test_malformed_tool_calls(raw, message):
    with pytest.raises(TextActionError, match=message):
        parse_text_action(raw)


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        (
            {"role": "assistant", "tool_calls": [call("bash", {"command": "a"}), call("ask", {"question": "b"}, "c2")]},
            "(bash, ask)",
        ),
        ('[{"name": "bash", "arguments": {}}, {"name": "submit", "arguments": {}}]', "(bash, submit)"),
        ("<bash>ls</bash> then <ask>why?</ask>", "(bash, ask)"),
        (f"<bash>ls</bash>\n{FENCE}sh\npwd\n{FENCE}", "(bash, sh)"),
        (f"{FENCE}bash\nls\n{FENCE}\n{FENCE}bash\npwd\n{FENCE}", "(bash, bash)"),
    ],
)
def test_two_calls_in_one_message_are_refused(raw, names):
    error = error_of(raw)
    assert error.message == f"the message has 2 tool calls {names}; send exactly one per message"
    assert "later messages" in error.hint


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"name": "deploy", "arguments": {}}', "unknown tool 'deploy'; available tools: bash, write_file"),
        ('{"name": "bsh", "arguments": {"command": "ls"}}', "unknown tool 'bsh' (did you mean 'bash'?); available"),
        ("<deploy>now</deploy>", "unknown tool 'deploy'; available tools"),
        ("<rm_rf/>", "unknown tool 'rm_rf'; available tools"),
        (call("x" * 10_000, {}), "unknown tool '" + "x" * 60 + "...'"),
    ],
)
def test_unknown_tools_are_named_with_suggestions(raw, message):
    error = error_of(raw)
    assert error.message.startswith(message)
    assert "bash(command)" in error.hint


def test_tools_outside_the_allowed_set_are_unavailable():
    error = error_of("<bash>ls</bash>", tools=CLARIFY_TOOLS)
    assert error.message == "tool 'bash' is not available here; available tools: ask, submit"
    assert "ask(question)" in error.hint and "bash" not in error.hint


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            call("bash", {"command": "x" * (MAX_COMMAND_CHARS + 1)}),
            f"bash: command: String should have at most {MAX_COMMAND_CHARS}",
        ),
        (
            "<ask>" + "q" * (MAX_QUESTION_CHARS + 1) + "</ask>",
            f"ask: question: String should have at most {MAX_QUESTION_CHARS}",
        ),
    ],
)
def test_huge_arguments_are_refused_with_the_limit(raw, message):
    error = error_of(raw)
    assert error.message.startswith(message)
    assert "Keep arguments within the limit" in error.hint


def test_a_huge_message_is_refused_before_parsing():
    error = error_of("<bash>" + "x" * 2_000 + "</bash>", max_chars=1_000)
    assert error.message == "the message has 2,013 characters; the limit is 1,000"


@pytest.mark.parametrize("raw", [b"\xff\xfe<bash>ls</bash>", b"<bash>caf\xe9</bash>", bytearray(b"\xc3\x28")])
def test_non_utf8_bytes_are_refused(raw):
    error = error_of(raw)
    assert error.message.startswith("the message is not valid UTF-8 (byte 0x")
    assert "base64" in error.hint


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "the message is empty"),
        ("   \n", "the message is empty"),
        ("All done, I think.", "no tool call found"),
        (3.5, "got float"),
    ],
)
def test_no_action_at_all(raw, message):
    assert message in error_of(raw).message


@pytest.mark.parametrize(
    "raw", ["<bash>" * 100_000, f"{FENCE}bash\n" * 50_000, "<a " * 300_000, "<" * 1_000_000, "<a>" * 300_000 + "</a>"]
)
def test_pathological_messages_are_answered(raw):
    """Scanning is linear: a quadratic scan of these would not finish within the suite's time-out."""
    with pytest.raises(TextActionError):
        parse_text_action(raw)


# -- the wrapper ---------------------------------------------------------------------------------------------------


@pytest.fixture
def clarify():
    environment = TextActions(ClarifyEnv(task="builtin/dep-resolver", budget=3, question_cost=0.0), tools=CLARIFY_TOOLS)
    environment.reset(seed=0)
    yield environment
    environment.close()


@pytest.mark.parametrize(
    "raw",
    [
        b"\xff<ask>why</ask>",
        '{"name": "ask", "arguments": "{\\"question\\": "}',
        "<ask>a</ask><ask>b</ask>",
        '{"name": "deploy", "arguments": {}}',
        "<ask>" + "q" * (MAX_QUESTION_CHARS + 1) + "</ask>",
    ],
)
def test_a_parse_failure_is_an_observation_and_the_episode_goes_on(clarify, raw):
    obs, reward, terminated, truncated, info = clarify.step(raw)
    assert obs["output"] == f"Action error: {info['action_error']}\nHint: {info['action_hint']}"
    assert info["action_error"] == error_of(raw, tools=CLARIFY_TOOLS).message
    assert (obs["step"], obs["questions_left"], terminated, truncated) == (1, 3, False, False)
    assert info["questions_used"] == 0 and obs in clarify.observation_space
    obs, _, _, _, info = clarify.step("<ask>how are cycles reported</ask>")
    assert (info["action_error"], info["action_hint"], info["recovered"], obs["step"]) == (None, None, ("C004",), 2)


def test_the_wrapped_env_counts_a_parse_failure_as_an_action_error(mini_pack):
    environment = TextActions(icae_env.make("icae/ProjectBuild-v0", task=str(mini_pack)))
    try:
        environment.reset(seed=0)
        obs, _, _, _, info = environment.step('<write_file path="notes.txt">\nhello\n</write_file>')
        assert obs["output"] == "Wrote 6 characters to notes.txt" and info["action_error"] is None
        obs, _, _, _, info = environment.step(f"{FENCE}bash\ncat notes.txt; (exit 3)\n{FENCE}")
        assert (obs["output"], obs["exit_code"]) == ("hello\n", 3)
        obs, _, _, _, info = environment.step("I am not sure what to do.")
        assert info["tool"] == "invalid" and info["counters"]["action_errors"] == 1
        assert info["action_error"] == "no tool call found" and obs["output"].startswith("Action error: no tool call")
        _, reward, terminated, _, info = environment.step("<submit/>")
        assert terminated and info["score"] is not None
    finally:
        environment.close()


def test_arguments_are_checked_and_recorded_in_the_spec():
    with pytest.raises(ValueError, match=r"unknown tool 'bsh'; expected names from .*did you mean 'bash'"):
        TextActions(ClarifyEnv(), tools=("bsh",))
    with pytest.raises(ValueError, match="tools must not repeat a name"):
        TextActions(ClarifyEnv(), tools=("ask", "ask"))
    with pytest.raises(TypeError, match="tools must be a sequence of tool names"):
        TextActions(ClarifyEnv(), tools="ask")
    with pytest.raises(ValueError, match="max_chars must be an int >= 1, got 0"):
        TextActions(ClarifyEnv(), max_chars=0)
    with pytest.raises(TypeError, match="observations are dicts with 'output'"):
        TextActions(gymnasium.make("CartPole-v1"))
    environment = TextActions(gymnasium.make("icae/Clarify-v0", budget=2), tools=CLARIFY_TOOLS, max_chars=500)
    rebuilt = gymnasium.make(environment.spec)
    assert isinstance(rebuilt, TextActions) and (rebuilt.tools, rebuilt.max_chars) == (CLARIFY_TOOLS, 500)
    assert rebuilt.action_space.max_length == 500 and INVALID_ACTION == {"tool": "invalid"}


@pytest.mark.parametrize(
    "module", [icae_env.wrappers.text_actions, icae_env.wrappers.text_parsing, icae_env.wrappers.text_scan]
)
def test_doctests_pass(module):
    assert doctest.testmod(module, raise_on_error=False).failed == 0
