"""What small models write instead of a clean call: fenced shell, JSON inside prose, Hermes tags; no guessing."""

from __future__ import annotations

import pytest

import icae_env
from icae_env.run.trajectory import read_trajectory, replay
from icae_env.wrappers import INVALID_ACTION, RecordEpisode, TextActionError, TextActions, parse_text_action

LS = {"tool": "bash", "command": "ls -la"}


@pytest.mark.parametrize(
    "output",
    [
        "Sure! Let me list the files.\n```bash\nls -la\n```\nThis shows everything.",
        "```sh\nls -la\n```",
        "In a terminal:\n```console\n$ ls -la\n```",
        'I will call {"name": "bash", "arguments": {"command": "ls -la"}} to see the files.',
        'To do this: {"tool": "bash", "command": "ls -la"}',
        'Calling the tool:\n```\n{"name": "bash", "arguments": {"command": "ls -la"}}\n```',
        'Here:\n```json\n{"type": "function", "function": {"name": "bash", '
        '"arguments": "{\\"command\\": \\"ls -la\\"}"}}\n```',
        '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>',
        'Listing.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n',  # the stop token ate the tag
        '{"name": "bash", "arguments": {"command": "ls -la"}}\nThat lists the files.',
    ],
)
def test_unambiguous_small_model_calls_become_actions(output):
    assert parse_text_action(output) == LS


def test_json_that_names_no_tool_is_prose_not_a_call():
    text = 'The input looks like {"name": "Alice", "arguments": [1, 2]} and {"tool": "hammer"}.'
    assert error_of(text).message == "no tool call found"


def test_two_calls_in_prose_are_two_calls():
    text = 'First {"name": "bash", "arguments": {"command": "ls"}} then {"name": "submit", "arguments": {}}.'
    assert error_of(text).message.startswith("the message has 2 tool calls (bash, submit)")


def test_a_hermes_call_cut_inside_its_json_is_still_not_run():
    error = error_of('<tool_call>\n{"name": "write_file", "arguments": {"path": "a.py", "content": "import')
    assert "is not closed" in error.message


def test_a_python_block_is_not_an_action_and_the_error_says_how_to_write_the_file():
    error = error_of("Here is the solution:\n```python\nimport sys\nprint(sys.argv)\n```\n")
    assert error.message.startswith("no tool call found: the message has a ```python block")
    assert '{"name": "write_file", "arguments": {"path": "main.py", "content":' in error.hint
    assert "```bash" in error.hint
    clarify = error_of("```python\nprint(1)\n```", tools=("ask", "submit"))
    assert "write_file" not in clarify.hint and "ask(question)" in clarify.hint


def test_a_prompt_is_dropped_only_when_every_line_has_one():
    assert parse_text_action("```bash\n$ cd src\n$ ls\n```") == {"tool": "bash", "command": "cd src\nls"}
    mixed = "```console\n$ ls\nfile.txt\n```"
    assert parse_text_action(mixed) == {"tool": "bash", "command": "$ ls\nfile.txt"}


def error_of(text: str, **kwargs) -> TextActionError:
    with pytest.raises(TextActionError) as caught:
        parse_text_action(text, **kwargs)
    return caught.value


def test_the_trajectory_records_the_raw_text_and_the_error_the_model_was_shown(tmp_path, mini_pack):
    env = TextActions(RecordEpisode(icae_env.make("icae/ProjectBuild-v0", task=str(mini_pack)), tmp_path))
    env.reset(seed=0)
    prose = "I think the answer is to print hello."
    shown = env.step(prose)[0]["output"]
    reply = {"role": "assistant", "content": "Listing.", "tool_calls": [call("c1", "bash", '{"command": "ls"}')]}
    env.step(reply)
    env.step({"tool": "submit"})
    env.close()
    steps = [r for r in read_trajectory(tmp_path / "episode-0.jsonl") if r["type"] == "step"]
    assert steps[0]["action"] == INVALID_ACTION and steps[0]["raw"] == prose
    assert shown == f"Action error: {steps[0]['info']['action_error']}\nHint: {steps[0]['info']['action_hint']}"
    assert steps[0]["info"]["action_error"] == "no tool call found"
    assert "unknown or missing tool" in steps[0]["info"]["env_action_error"]
    assert steps[1]["raw"] == "Listing." and steps[1]["action"] == {"tool": "bash", "command": "ls"}
    assert "raw" not in steps[2]  # an action dict has no model text
    assert replay(tmp_path / "episode-0.jsonl").ok  # the env's own observations stay in the line


def call(call_id: str, name: str, arguments: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
