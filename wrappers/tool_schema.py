"""The icae-env tools as OpenAI function definitions, and the text that teaches a model to call them.

The definitions are derived from the action models of :mod:`icae_env.actions` and kept to the JSON-Schema subset
that OpenAI-compatible servers accept (no ``prefixItems``, no ``title``). They carry no length or number bounds
(``maxLength``, ``minimum`` ...): servers that compile the schema into a sampling grammar (llama.cpp's
``chatml-function-calling``) crash or stall on ``maxLength`` 5,000,000. The env enforces the bounds, and an
action over them comes back as an action error that names the limit.

Example:
    >>> [d["function"]["name"] for d in tool_schemas(("ask", "submit"))]
    ['ask', 'submit']
    >>> tool_schemas(("bash",))[0]["function"]["parameters"]["required"]
    ['command']
    >>> tool_schemas(("write_file",))[0]["function"]["parameters"]["properties"]["content"]["type"]
    'string'
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from typing import Any

from gymnasium import spaces
from pydantic import BaseModel

from icae_env.actions import Ask, Bash, StrReplace, Submit, View, WriteFile
from icae_env.errors import ArgumentError, ArgumentTypeError

__all__ = [
    "TOOL_NAMES",
    "MAIN_PARAMETER",
    "check_text_env",
    "check_tools",
    "tool_schemas",
    "tool_instructions",
    "usage",
]

_MODELS: dict[str, type[BaseModel]] = {
    "bash": Bash,
    "write_file": WriteFile,
    "str_replace": StrReplace,
    "view": View,
    "ask": Ask,
    "submit": Submit,
}
TOOL_NAMES: tuple[str, ...] = tuple(_MODELS)

#: The parameter an XML tag's or fenced block's body fills (None: the tool takes the body from child tags only).
MAIN_PARAMETER: dict[str, str | None] = {
    "bash": "command",
    "write_file": "content",
    "str_replace": None,
    "view": "path",
    "ask": "question",
    "submit": None,
}

_PARAMETER_DOCS = {
    ("bash", "command"): "Shell command, run by bash in the workspace session (cd and variables persist).",
    ("bash", "timeout"): "Seconds before the command is killed (optional).",
    ("write_file", "path"): "File path relative to the workspace root.",
    ("write_file", "content"): "The complete new content of the file.",
    ("str_replace", "path"): "File path relative to the workspace root.",
    ("str_replace", "old"): "Exact text to replace; it must occur exactly once in the file.",
    ("str_replace", "new"): "Replacement text.",
    ("view", "path"): "File or directory relative to the workspace root (default '.').",
    ("view", "range"): "Optional [first, last] line numbers to show, 1-based and inclusive.",
    ("ask", "question"): "One clarification question for the user; it uses one question of the budget.",
}

_EXAMPLES = {
    "bash": ("<bash>ls -la</bash>", '{"name": "bash", "arguments": {"command": "ls -la"}}'),
    "write_file": ('<write_file path="notes.txt">text</write_file>', None),
    "str_replace": ('<str_replace path="a.py"><old>x = 1</old><new>x = 2</new></str_replace>', None),
    "view": ('<view path="src/main.py" range="1,40"/>', None),
    "ask": ("<ask>What should the output look like?</ask>", None),
    "submit": ("<submit/>", '{"name": "submit", "arguments": {}}'),
}


def check_tools(tools: Sequence[str] | None) -> tuple[str, ...]:
    """Return ``tools`` as a tuple of known, distinct tool names (all tools for None).

    Raises:
        TypeError: if ``tools`` is not a sequence of strings.
        ValueError: for an empty selection, a duplicate or an unknown name (with a suggestion).
    """
    if tools is None:
        return TOOL_NAMES
    if isinstance(tools, str) or not all(isinstance(t, str) for t in tools):
        raise ArgumentTypeError(f"tools must be a sequence of tool names, got {tools!r}")
    chosen = tuple(tools)
    if not chosen:
        raise ArgumentError(f"tools must name at least one of {list(TOOL_NAMES)}")
    for name in chosen:
        if name not in _MODELS:
            close = difflib.get_close_matches(name, TOOL_NAMES, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ArgumentError(f"unknown tool {name!r}; expected names from {list(TOOL_NAMES)}{hint}")
    if len(set(chosen)) != len(chosen):
        raise ArgumentError(f"tools must not repeat a name, got {list(chosen)}")
    return chosen


#: Schema keywords left out of the definitions: bounds are the env's to enforce (see the module docstring).
_BOUNDS = frozenset({"maxLength", "minLength", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"})


def _clean(schema: Any) -> Any:
    """Drop titles and bounds, turn ``anyOf [X, null]`` into X and ``prefixItems`` into ``items``."""
    if isinstance(schema, list):
        return [_clean(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    options = schema.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        inner = next(o for o in options if o != {"type": "null"})
        return _clean({**inner, **{k: v for k, v in schema.items() if k not in ("anyOf", "default")}})
    out = {k: _clean(v) for k, v in schema.items() if k != "title" and k not in _BOUNDS}
    if "prefixItems" in out:
        out["items"] = out.pop("prefixItems")[0]
    return out


def _definition(name: str) -> dict[str, Any]:
    model = _MODELS[name]
    schema = model.model_json_schema()
    properties = {k: _clean(v) for k, v in schema.get("properties", {}).items() if k != "tool"}
    for key, prop in properties.items():
        prop["description"] = _PARAMETER_DOCS[(name, key)]
    parameters = {
        "type": "object",
        "properties": properties,
        "required": [k for k in schema.get("required", []) if k != "tool"],
        "additionalProperties": False,
    }
    return {"type": "function", "function": {"name": name, "description": model.__doc__, "parameters": parameters}}


def tool_schemas(tools: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Return OpenAI function definitions (the ``tools`` field of a chat-completions request).

    Args:
        tools: Tool names to include (default: every tool, in :data:`TOOL_NAMES` order).

    Returns:
        One ``{"type": "function", "function": {"name", "description", "parameters"}}`` per tool.
    """
    return [_definition(name) for name in check_tools(tools)]


def usage(name: str) -> str:
    """Return a one-line example of calling tool ``name`` in text."""
    tag, json_form = _EXAMPLES[name]
    required = _definition(name)["function"]["parameters"]["required"]
    args = ", ".join(required) if required else "no arguments"
    return f"{name}({args}), e.g. {tag}" + (f" or {json_form}" if json_form else "")


def tool_instructions(tools: Sequence[str] | None = None) -> str:
    """Return the system-prompt text that lists the tools (as JSON definitions) and the accepted call formats."""
    chosen = check_tools(tools)
    definitions = json.dumps([d["function"] for d in tool_schemas(chosen)], indent=1, ensure_ascii=False)
    examples = "\n".join(f"- {usage(name)}" for name in chosen)
    return (
        "Call exactly one tool per message. The tools, as OpenAI function definitions:\n"
        f"{definitions}\n"
        "Use native tool calls when you have them. Otherwise write the call in your message as JSON "
        '{"name": ..., "arguments": {...}}, as one XML tag named after the tool (parameters as attributes or '
        "child tags, the main one as the body), or as one ```bash fenced block. For example:\n"
        f"{examples}"
    )


def check_text_env(env: Any, wrapper: str) -> None:
    """Raise :class:`~icae_env.errors.ArgumentTypeError` unless ``env``'s observations are dicts with ``output``.

    Args:
        env: The env a text wrapper is put on.
        wrapper: The wrapper's name, for the message.
    """
    space = env.observation_space
    if not isinstance(space, spaces.Dict) or "output" not in space.spaces:
        raise ArgumentTypeError(f"{wrapper} needs an env whose observations are dicts with 'output'; got {space}")
