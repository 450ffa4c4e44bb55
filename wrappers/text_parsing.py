r"""Turn raw model output into one icae-env action dict.

Accepted forms (exactly one call per message):

* OpenAI tool calls as JSON: an assistant message ``{"role": "assistant", "tool_calls": [...]}`` (dict or JSON
  text), one tool call ``{"type": "function", "function": {"name", "arguments"}}`` (``arguments`` a JSON string
  or object), the short form ``{"name", "arguments"}``, or an action dict ``{"tool": ...}``;
* XML tags named after a tool: ``<bash>ls</bash>``, ``<ask>...</ask>``, ``<write_file path="a.py">...
  </write_file>``, ``<view path="a.py" range="1,20"/>``, ``<submit/>``; parameters as attributes or child tags
  (``<old>``/``<new>``); ``<tool_call>{json}</tool_call>`` holds a JSON call;
* fenced blocks: ```` ```bash ```` (also ``sh``, ``shell``), ```` ```json ```` holding a JSON call, or a fence
  whose info string starts with a tool name (```` ```write_file path=a.py ````).

Everything else raises :class:`TextActionError`, whose ``hint`` tells the model how to do better.

Example:
    >>> parse_text_action("Let me look.\n<bash>ls -la</bash>")
    {'tool': 'bash', 'command': 'ls -la'}
    >>> parse_text_action('{"name": "ask", "arguments": "{\\"question\\": \\"Which format?\\"}"}')
    {'tool': 'ask', 'question': 'Which format?'}
"""

from __future__ import annotations

import difflib
import html
import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from icae_env.actions import MAX_CONTENT_CHARS, ActionParseError, parse_action
from icae_env.errors import IcaeEnvError
from icae_env.wrappers.text_scan import BASH_FENCES, JSON_WRAPPERS, Candidate, scan, unknown_tag
from icae_env.wrappers.tool_schema import MAIN_PARAMETER, TOOL_NAMES, check_tools, usage

__all__ = ["TextActionError", "parse_text_action", "content_text", "DEFAULT_MAX_CHARS", "format_hint"]

#: Longest accepted message: a whole file at the content limit plus room for the JSON around it.
DEFAULT_MAX_CHARS = MAX_CONTENT_CHARS + 100_000
_ATTRIBUTE = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))""")


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


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextActionError(
            f"the message is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
            "Send UTF-8 text; to write binary data, write base64 text and decode it with bash (base64 -d).",
        ) from None


def parse_text_action(
    raw: Any, tools: Sequence[str] | None = None, max_chars: int = DEFAULT_MAX_CHARS
) -> dict[str, Any]:
    """Return the single action in ``raw`` as a JSON-able action dict (``{"tool": ..., ...}``).

    Args:
        raw: Model output: text, UTF-8 bytes, an assistant-message or tool-call dict, or an action model.
        tools: Tool names that may be called (default: all).
        max_chars: Longest accepted text.

    Returns:
        The validated action, e.g. ``{"tool": "bash", "command": "ls"}`` (unset optional fields left out).

    Raises:
        TextActionError: when ``raw`` holds no action, several, an unknown tool or invalid arguments.
    """
    allowed = check_tools(tools)
    if isinstance(raw, (bytes, bytearray)):
        raw = _decode(bytes(raw))
    if isinstance(raw, BaseModel):
        raw = raw.model_dump(mode="json")
    if isinstance(raw, dict):
        return _from_object(raw, allowed)
    if not isinstance(raw, str):
        raise TextActionError(f"expected model output as text, got {type(raw).__name__}", format_hint(allowed))
    if len(raw) > max_chars:
        raise TextActionError(
            f"the message has {len(raw):,} characters; the limit is {max_chars:,}",
            "Write large files in parts: write_file the first part, then append the rest with bash.",
        )
    return _from_text(raw, allowed)


def _from_text(text: str, tools: tuple[str, ...]) -> dict[str, Any]:
    stripped = text.strip()
    if not stripped:
        raise TextActionError("the message is empty", format_hint(tools))
    json_error = None
    if stripped[0] in "{[":
        try:
            return _from_object(_load_json(stripped), tools)
        except _JsonError as exc:
            json_error = exc
    candidates = scan(text)
    if not candidates:
        if json_error is not None:
            raise json_error
        unknown = unknown_tag(text)
        raise _unknown_tool(unknown, tools) if unknown else TextActionError("no tool call found", format_hint(tools))
    if len(candidates) > 1:
        names = ", ".join(_short(c.name or c.kind) for c in candidates[:5])
        raise TextActionError(
            f"the message has {len(candidates)} tool calls ({names}); send exactly one per message",
            "Send the first call now and the others in later messages, after reading each result.",
        )
    return _from_candidate(candidates[0], tools)


class _JsonError(TextActionError):
    """The text looked like JSON but does not parse."""


_JSON_HINT = (
    'Write the call as one JSON object {"name": "<tool>", "arguments": {...}} with escaped quotes and newlines, '
    "or use an XML tag such as <bash>...</bash>."
)


def _json_problem(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg}: line {exc.lineno} column {exc.colno}"
    return "nested too deeply" if isinstance(exc, RecursionError) else _short(str(exc), 120)


def _load_json(text: str, what: str = "invalid JSON") -> Any:
    """Parse JSON; any failure (syntax, nesting depth, integers too long to convert) is a :class:`_JsonError`."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise _JsonError(f"malformed tool call: {what} ({_json_problem(exc)})", _JSON_HINT) from None


def content_text(content: Any) -> str | None:
    """Return a message's content as text (None when it has none).

    A string is returned as is; content parts (``[{"type": "text", "text": ...}]``) are joined.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return None


def _from_object(value: Any, tools: tuple[str, ...]) -> dict[str, Any]:
    """Interpret a JSON value: an assistant message, a list of calls, or one call."""
    if isinstance(value, dict) and ("tool_calls" in value or value.get("role") == "assistant"):
        calls = value.get("tool_calls") or []
        if not calls:
            return _from_text(content_text(value.get("content")) or "", tools)
    else:
        calls = value if isinstance(value, list) else [value]
    if not isinstance(calls, list) or not calls:
        raise TextActionError("the message has no tool call", format_hint(tools))
    if len(calls) > 1:
        names = ", ".join(_short(str(_call_name(c))) for c in calls[:5])
        raise TextActionError(
            f"the message has {len(calls)} tool calls ({names}); send exactly one per message",
            "Send the first call now and the others in later messages, after reading each result.",
        )
    return _from_call(calls[0], tools)


def _call_name(call: Any) -> Any:
    if not isinstance(call, dict):
        return "?"
    function = call.get("function")
    return (function.get("name") if isinstance(function, dict) else None) or call.get("name") or call.get("tool")


def _from_call(call: Any, tools: tuple[str, ...]) -> dict[str, Any]:
    """Interpret one call: ``{"function": {...}}``, ``{"name", "arguments"}`` or ``{"tool", ...}``."""
    hint = 'A tool call is {"name": "<tool>", "arguments": {...}}. ' + format_hint(tools)
    if not isinstance(call, dict):
        raise TextActionError(f"malformed tool call: expected a JSON object, got {type(call).__name__}", hint)
    if "function" in call:
        function = call["function"]
        if not isinstance(function, dict):
            raise TextActionError("malformed tool call: 'function' must be an object with name and arguments", hint)
        name, arguments = function.get("name"), function.get("arguments")
    elif "tool" in call:
        name, arguments = call["tool"], {k: v for k, v in call.items() if k != "tool"}
    elif "name" in call:
        name, arguments = call["name"], call.get("arguments", call.get("parameters"))
    else:
        keys = [_short(str(k)) for k in list(call)[:8]]
        raise TextActionError(f"malformed tool call: no tool name (keys: {', '.join(keys)})", hint)
    if not isinstance(name, str) or not name.strip():
        raise TextActionError(
            f"malformed tool call: the tool name must be a non-empty string, got {_short(repr(name))}", hint
        )
    return _action(name.strip().removeprefix("functions."), _arguments(name, arguments, hint), tools)


def _arguments(name: str, arguments: Any, hint: str) -> dict[str, Any]:
    name = _short(name)
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        arguments = _load_json(arguments, f"the arguments of {name!r} are not valid JSON")
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise TextActionError(
            f"malformed tool call: the arguments of {name!r} must be a JSON object, got {type(arguments).__name__}",
            hint,
        )
    return arguments


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _unknown_tool(name: str, tools: tuple[str, ...]) -> TextActionError:
    name = _short(name)
    if name in TOOL_NAMES:
        return TextActionError(
            f"tool {name!r} is not available here; available tools: {', '.join(tools)}", format_hint(tools)
        )
    close = difflib.get_close_matches(name, tools, n=1)
    suggestion = f" (did you mean {close[0]!r}?)" if close else ""
    return TextActionError(
        f"unknown tool {name!r}{suggestion}; available tools: {', '.join(tools)}", format_hint(tools)
    )


def _action(name: str, arguments: dict[str, Any], tools: tuple[str, ...]) -> dict[str, Any]:
    """Validate ``name(arguments)`` with the action models and return the action dict."""
    if name not in tools:
        raise _unknown_tool(name, tools)
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


def _trim_body(body: str) -> str:
    """Drop the newline right after the opening tag or fence (the layout, not the content)."""
    return body[1:] if body.startswith("\n") else body


def _from_candidate(found: Candidate, tools: tuple[str, ...]) -> dict[str, Any]:
    """Turn one tag or fence into an action: a JSON call, or the tool's arguments from attributes and body."""
    if found.name in JSON_WRAPPERS:
        return _from_object(_load_json(found.body.strip()), tools)
    name = "bash" if found.kind == "fence" and found.name in BASH_FENCES else found.name
    if name not in tools:
        raise _unknown_tool(name, tools)
    arguments = _attributes(found.attrs, unescape=found.kind == "tag")
    children = {} if found.kind == "fence" else _children(name, found.body)
    main = MAIN_PARAMETER[name]
    if children:
        arguments.update(children)
    elif main is not None and found.body:
        arguments[main] = _trim_body(found.body) if main == "content" else found.body.strip()
    return _action(name, _coerce(name, arguments), tools)


def _children(name: str, body: str) -> dict[str, str]:
    """Return ``<param>...</param>`` child elements of a tool tag's body."""
    children = {}
    for key in _parameters(name):
        start = body.find(f"<{key}>")
        end = body.find(f"</{key}>", start + 1) if start >= 0 else -1
        if end >= 0:
            children[key] = _trim_body(body[start + len(key) + 2 : end])
    return children


def _attributes(text: str, unescape: bool) -> dict[str, Any]:
    """Return ``key="value"`` (or ``'value'`` or bare ``value``) pairs of a tag or fence info string."""
    pairs = {m[1]: next(g for g in m.groups()[1:] if g is not None) for m in _ATTRIBUTE.finditer(text)}
    return {k: html.unescape(v) for k, v in pairs.items()} if unescape else dict(pairs)


def _parameters(name: str) -> tuple[str, ...]:
    return {"str_replace": ("path", "old", "new"), "write_file": ("path", "content")}.get(name, ())


def _coerce(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Turn text attributes into the types the models expect (``range="1,20"`` -> ``[1, 20]``)."""
    value = arguments.get("range")
    if name == "view" and isinstance(value, str):
        arguments["range"] = [int(n) for n in re.findall(r"-?\d{1,12}", value)]
    return arguments
