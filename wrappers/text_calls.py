r"""One tool call to one validated icae-env action, and the errors the model is told about.

Example:
    >>> to_action("bash", {"command": "ls"}, ("bash",))
    {'tool': 'bash', 'command': 'ls'}
    >>> unknown_tool("bsh", ("bash", "ask")).message
    "unknown tool 'bsh' (did you mean 'bash'?); available tools: bash, ask"
    >>> no_call("Here it is:\n```python\nprint(1)\n```", ("bash", "write_file")).message
    'no tool call found: the message has a ```python block, and code in a message is neither saved nor run'
    >>> strip_prompts("$ ls\n$ cat a.txt")
    'ls\ncat a.txt'
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from typing import Any

from icae_env.actions import ActionParseError, parse_action
from icae_env.errors import IcaeEnvError
from icae_env.wrappers.tool_schema import TOOL_NAMES, usage

__all__ = [
    "JSON_HINT",
    "JsonError",
    "TextActionError",
    "call_arguments",
    "format_hint",
    "json_problem",
    "load_json",
    "no_call",
    "short",
    "strip_prompts",
    "to_action",
    "unknown_tool",
]


class TextActionError(IcaeEnvError, ValueError):
    """The model output holds no single well-formed action.

    Attributes:
        message: What is wrong (expected and received).
        hint: How to write a valid call.
    """

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message, self.hint = message, hint


def format_hint(tools: Sequence[str]) -> str:
    """Return the generic hint: one call per message, and how to write each available tool."""
    return "Send exactly one tool call per message. " + " ".join(f"{usage(t)}." for t in tools)


class JsonError(TextActionError):
    """The text looked like JSON but does not parse."""


JSON_HINT = (
    'Write the call as one JSON object {"name": "<tool>", "arguments": {...}} with escaped quotes and newlines, '
    "or use an XML tag such as <bash>...</bash>."
)


def json_problem(exc: Exception) -> str:
    """Return what is wrong with JSON that failed to parse, in one line."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg}: line {exc.lineno} column {exc.colno}"
    return "nested too deeply" if isinstance(exc, RecursionError) else short(str(exc), 120)


def load_json(text: str, what: str = "invalid JSON") -> Any:
    """Parse JSON; any failure (syntax, nesting depth, integers too long to convert) is a :class:`JsonError`."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise JsonError(f"malformed tool call: {what} ({json_problem(exc)})", JSON_HINT) from None


def call_arguments(name: str, arguments: Any, hint: str) -> dict[str, Any]:
    """Return a call's arguments as a dict: a JSON object, JSON text of one, or nothing (``{}``).

    Raises:
        TextActionError: when they are not a JSON object (``hint`` says how to call the tool).
    """
    name = short(name)
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        arguments = load_json(arguments, f"the arguments of {name!r} are not valid JSON")
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise TextActionError(
            f"malformed tool call: the arguments of {name!r} must be a JSON object, got {type(arguments).__name__}",
            hint,
        )
    return arguments


def short(text: str, limit: int = 60) -> str:
    """Return ``text`` cut to ``limit`` characters (with ``...``), to quote model output in a message."""
    return text if len(text) <= limit else text[:limit] + "..."


def unknown_tool(name: str, tools: tuple[str, ...]) -> TextActionError:
    """Return the error for a tool that is not in ``tools`` (unavailable here, or unknown with a suggestion)."""
    name = short(name)
    if name in TOOL_NAMES:
        return TextActionError(
            f"tool {name!r} is not available here; available tools: {', '.join(tools)}", format_hint(tools)
        )
    close = difflib.get_close_matches(name, tools, n=1)
    suggestion = f" (did you mean {close[0]!r}?)" if close else ""
    return TextActionError(
        f"unknown tool {name!r}{suggestion}; available tools: {', '.join(tools)}", format_hint(tools)
    )


def to_action(name: str, arguments: dict[str, Any], tools: tuple[str, ...]) -> dict[str, Any]:
    """Validate ``name(arguments)`` with the action models and return the action dict."""
    if name not in tools:
        raise unknown_tool(name, tools)
    try:
        model = parse_action({**arguments, "tool": name})
    except ActionParseError as exc:
        raise TextActionError(f"{name}: {exc}", f"Usage: {usage(name)}.{_limit_hint(str(exc))}") from None
    action: dict[str, Any] = model.model_dump(mode="json", exclude_none=True)
    return action


def _limit_hint(message: str) -> str:
    if "at most" not in message:
        return ""
    return " Keep arguments within the limit: put long scripts in a file with write_file, split big files in parts."


_CODE_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[ \t]*([^\s`]*)", re.MULTILINE)
NO_CALL = "no tool call found"


def no_call(text: str, tools: tuple[str, ...]) -> TextActionError:
    """Return the error for a message without a call; a code block that is not a tool call is named, with a hint.

    A fenced block in a programming language (```python) is not an action: nothing says which file it belongs to.
    The hint shows how to save it with write_file and run it with bash.
    """
    fence = _CODE_FENCE.search(text)
    if fence is None:
        return TextActionError(NO_CALL, format_hint(tools))
    language = fence[1]
    block = f"a ```{short(language, 20)} block" if language else "a ``` block without a language"
    message = f"{NO_CALL}: the message has {block}, and code in a message is neither saved nor run"
    hints = []
    if "write_file" in tools:
        hints.append(
            "To save code, call write_file with the file's path and its whole text as content, e.g. "
            '{"name": "write_file", "arguments": {"path": "main.py", "content": "print(1)\\n"}} or '
            '<write_file path="main.py">print(1)</write_file>.'
        )
    if "bash" in tools:
        hints.append("To run a shell command, write it in a ```bash block or as <bash>command</bash>.")
    return TextActionError(message, " ".join([*hints, format_hint(tools)]))


def strip_prompts(command: str) -> str:
    """Drop the ``$ `` prompt of a shell block whose every non-empty line starts with one (as in a terminal)."""
    lines = command.splitlines()
    if not any(line.strip() for line in lines) or not all(line.startswith("$ ") for line in lines if line.strip()):
        return command
    return "\n".join(line[2:] if line.startswith("$ ") else line for line in lines)
