r"""The native tool-call syntaxes of open models, one row each, found in time linear in the text's length.

Each :class:`Syntax` says how to find one call (an opening pattern, and the pattern that closes it) and how its
payload gives the tool's name and arguments: a JSON call (``{"name": ..., "arguments": ...}``, or a list of them),
JSON arguments after a name the opening pattern captured, or one element per parameter (``<parameter=k>v``,
``<arg_key>k</arg_key><arg_value>v</arg_value>`` ...) whose values are text for string parameters and JSON
otherwise, as the models' chat templates write them. :mod:`wrappers.text_parsing` documents them in one table.
:func:`json_calls` finds JSON calls that small models write inside prose or an unlabelled fence.

Example:
    >>> [(c.name, c.attrs, c.body) for c in native_calls("<tool_call>bash<arg_key>command</arg_key>"
    ...     "<arg_value>ls</arg_value></tool_call>")]
    [('bash', 'GLM-4.5', '<arg_key>command</arg_key><arg_value>ls</arg_value>')]
    >>> decode(native_calls("<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>"
    ...     '{"command": "ls"}<|tool_call_end|>')[0])
    {'command': 'ls'}
    >>> [c.body for c in json_calls('I will run {"name": "bash", "arguments": {"command": "ls"}} now.')]
    ['{"name": "bash", "arguments": {"command": "ls"}}']
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from icae_env.wrappers.text_scan import Candidate
from icae_env.wrappers.tool_schema import TOOL_NAMES, tool_schemas

__all__ = ["SYNTAXES", "Syntax", "decode", "json_calls", "native_calls", "pythonic_calls"]

_NAME = r"(?P<name>[A-Za-z_][\w.\-]{0,127})(?![\w.\-])"
_END = r"\Z"


@dataclass(frozen=True)
class Syntax:
    r"""One native tool-call syntax.

    Attributes:
        name: Who writes it, as the format table names it.
        marker: Text every call of this syntax contains (rows whose marker is absent are not searched).
        opener: Where one call starts; group ``name`` holds the tool's name unless the payload names it.
        closer: Where the call's payload ends (searched from the opener's end; ``\Z`` for a stop token that the
            decoder may have dropped). A call that is never closed is reported, not run.
        payload: ``call`` (a JSON call or list of calls), ``json`` (JSON arguments) or ``pairs``.
        parameter: For ``pairs``: the opening pattern of one parameter (group ``key``) and the pattern closing it.
        trim: For ``pairs``: the template wraps each value in newlines, which are dropped.
    """

    name: str
    marker: str
    opener: re.Pattern[str]
    closer: re.Pattern[str]
    payload: str
    parameter: tuple[re.Pattern[str], re.Pattern[str]] | None = None
    trim: bool = False


def _syntax(name: str, marker: str, opener: str, closer: str, payload: str, **options: Any) -> Syntax:
    return Syntax(name, marker, re.compile(opener), re.compile(closer), payload, **options)


def _pairs(opener: str, closer: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    return re.compile(opener), re.compile(closer)


_XML_NS = r"(?:antml:|｜DSML｜)?"  # Claude's namespace, DeepSeek V3.2/V4's DSML prefix, none (MiniMax-M2)

#: The rows of the format table that are native syntaxes (OpenAI JSON, icae tags and fences are parsed elsewhere).
SYNTAXES: tuple[Syntax, ...] = (
    _syntax("Hermes", "<tool_call>", r"<tool_call>\s*(?=[{\[])", r"</tool_call>", "call"),
    _syntax(
        "Qwen3-Coder",
        "<function=",
        rf"(?:<(?:seed:)?tool_call>\s*)?<function={_NAME}>",
        r"</function>(?:\s*</(?:seed:)?tool_call>)?",
        "pairs",
        parameter=_pairs(r"<parameter=(?P<key>[^>\n]{1,128})>", r"</parameter>"),
        trim=True,
    ),
    _syntax(
        "GLM-4.5",
        "<tool_call>",
        rf"<tool_call>\s*{_NAME}",
        r"</tool_call>",
        "pairs",
        parameter=_pairs(r"<arg_key>\s*(?P<key>[^<]{1,128}?)\s*</arg_key>\s*<arg_value>", r"</arg_value>"),
    ),
    _syntax(
        "Anthropic",
        "invoke",
        rf'<{_XML_NS}invoke\s+name="{_NAME}"\s*>',
        rf"</{_XML_NS}invoke>",
        "pairs",
        parameter=_pairs(
            rf'<{_XML_NS}parameter\s+name="(?P<key>[^"]{{1,128}})"[^<>]{{0,64}}>', rf"</{_XML_NS}parameter>"
        ),
    ),
    _syntax(
        "DeepSeek V3",
        "<｜tool▁call▁begin｜>",
        rf"<｜tool▁call▁begin｜>(?:function<｜tool▁sep｜>)?{_NAME}\s*(?:<｜tool▁sep｜>)?",
        r"<｜tool▁call▁end｜>",
        "json",
    ),
    _syntax(
        "Kimi K2",
        "<|tool_call_begin|>",
        rf"<\|tool_call_begin\|>\s*{_NAME}(?::\d{{1,9}})?\s*<\|tool_call_argument_begin\|>",
        r"<\|tool_call_end\|>",
        "json",
    ),
    _syntax(
        "harmony",
        "<|message|>",
        rf"to={_NAME}(?:[^<\n]|<\|(?:channel|constrain)\|>){{0,64}}?<\|message\|>",
        rf"<\|call\|>|<\|end\|>|<\|start\|>|{_END}",
        "json",
    ),
    _syntax(
        "Mistral",
        "[TOOL_CALLS]",
        rf"\[TOOL_CALLS\]\s*{_NAME}(?:\[CALL_ID\]\w{{0,64}})?(?:\[ARGS\])?(?=\s*\{{)",
        rf"(?=\[TOOL_CALLS\])|</s>|{_END}",
        "json",
    ),
    _syntax("Mistral before v11", "[TOOL_CALLS]", r"\[TOOL_CALLS\]\s*(?=\[)", rf"</s>|{_END}", "call"),
    _syntax("Llama 3", "<|python_tag|>", r"<\|python_tag\|>", rf"<\|eom_id\|>|<\|eot_id\|>|{_END}", "call"),
    _syntax("Llama 4", "<|python_start|>", r"<\|python_start\|>", rf"<\|python_end\|>|<\|eot\|>|{_END}", "pythonic"),
    _syntax("Granite 3", "<|tool_call|>", r"<\|tool_call\|>", rf"<\|end_of_text\|>|{_END}", "call"),
    _syntax("Gemma 4", "<|tool_call>call:", rf"<\|tool_call>call:{_NAME}\{{", r"\}<tool_call\|>", "gemma"),
)
_BY_NAME = {s.name: s for s in SYNTAXES}


def _spans(text: str, opener: re.Pattern[str], closer: re.Pattern[str]) -> Iterator[tuple[re.Match[str], Any]]:
    """Yield (opening match, closing match or None) pairs, left to right, stopping after an unclosed one.

    Every character is looked at a bounded number of times: a closer missing after one opener is missing after
    every later one, so the search stops there.
    """
    pos = 0
    while (start := opener.search(text, pos)) is not None:
        end = closer.search(text, start.end())
        yield start, end
        if end is None:
            return
        pos = end.end()


def native_calls(text: str) -> list[Candidate]:
    """Return every native call of ``text`` as a ``native`` candidate (``unclosed`` when its end is missing).

    A candidate's ``name`` is the tool's name as written (empty when the payload names it), ``attrs`` the syntax's
    name and ``body`` the payload.
    """
    found = []
    for syntax in (s for s in SYNTAXES if s.marker in text):
        for start, end in _spans(text, syntax.opener, syntax.closer):
            name = start.groupdict().get("name") or ""
            if end is None and syntax.payload == "call" and _whole_json_to_end(text, start.end()):
                # the model stopped right after a complete JSON call (the stop token took the closing tag)
                found.append(Candidate(start.start(), len(text), "native", name, syntax.name, text[start.end() :]))
            elif end is None:
                found.append(Candidate(start.start(), len(text), "unclosed", name, syntax.name, ""))
            else:
                body = text[start.end() : end.start()]
                found.append(Candidate(start.start(), end.end(), "native", name, syntax.name, body))
    return found


def _whole_json_to_end(text: str, pos: int) -> bool:
    """Whether ``text[pos:]`` is one complete JSON value and nothing else (white space aside)."""
    rest = text[pos:]
    try:
        _, end = json.JSONDecoder().raw_decode(text, pos + len(rest) - len(rest.lstrip()))
    except (ValueError, RecursionError):
        return False
    return not text[end:].strip()


_JSON_CALL = re.compile(r'\{\s*"(?:name|tool|function|type)"\s*:')
_MAX_JSON_TRIES = 32  # objects tried per message: bounded work on long prose full of JSON
_CALL_KEYS = frozenset({"name", "arguments", "parameters", "id", "type"})


def _is_call(value: Any) -> bool:
    """Whether a JSON value is unmistakably one tool call: it names a known tool and holds nothing else."""
    if not isinstance(value, dict):
        return False
    function = value.get("function")
    if isinstance(function, dict):
        return function.get("name") in TOOL_NAMES and set(value) <= _CALL_KEYS | {"function"}
    if value.get("tool") in TOOL_NAMES:
        return "name" not in value
    return value.get("name") in TOOL_NAMES and set(value) <= _CALL_KEYS


def json_calls(text: str) -> list[Candidate]:
    """Return the JSON tool calls written inside ``text`` (prose, an unlabelled fence) as ``json`` candidates.

    Only objects that name a known tool and hold nothing but a call's keys count: ``{"name": "bash",
    "arguments": {...}}``, ``{"type": "function", "function": {...}}`` or ``{"tool": "bash", ...}``; other JSON
    (example data in the prose) is left alone.
    """
    decoder, found, pos = json.JSONDecoder(), [], 0
    for _ in range(_MAX_JSON_TRIES):
        start = _JSON_CALL.search(text, pos)
        if start is None:
            break
        try:
            value, end = decoder.raw_decode(text, start.start())
        except (ValueError, RecursionError):
            pos = start.start() + 1
            continue
        if _is_call(value):
            found.append(Candidate(start.start(), end, "json", "", "JSON", text[start.start() : end]))
            pos = end
        else:
            pos = start.start() + 1
    return found


def decode(found: Candidate) -> Any:
    """Return a native candidate's payload: a JSON call or list of calls, or the tool's arguments.

    Raises:
        ValueError: when a JSON payload does not parse (also ``RecursionError`` for absurd nesting).
    """
    syntax = _BY_NAME[found.attrs]
    if syntax.parameter is not None:
        return _parameters(syntax.parameter, syntax.trim, found.name, found.body)
    return _DECODERS[syntax.payload](found.body)


def _unfenced(body: str) -> str:
    """Drop a Markdown fence around JSON (DeepSeek V3 writes ```json ... ```)."""
    text = body.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rstrip().removesuffix("```")
    return text


def _json_sequence(body: str) -> Any:
    """Parse one JSON value, or several separated by ``;`` (Llama 3.2 writes parallel calls so) as a list."""
    decoder, text = json.JSONDecoder(), body.strip()
    values, pos = [], 0
    while pos < len(text):
        value, pos = decoder.raw_decode(text, pos)
        values.append(value)
        while pos < len(text) and text[pos] in " \t\r\n;":
            pos += 1
    if not values:
        raise json.JSONDecodeError("Expecting value", text, 0)
    return values[0] if len(values) == 1 else values


def _pythonic(body: str) -> Any:
    calls = pythonic_calls(body)
    if calls is None:
        raise ValueError('expected a list of calls such as [bash(command="ls")]')
    return calls


_GEMMA_QUOTE = '<|"|>'
_GEMMA_KEY = re.compile(r"\s*,?\s*([A-Za-z_]\w{0,127})\s*:\s*")
_GEMMA_SCALAR = re.compile(r"\[[^\]]*\]|[^,]*")


def _gemma(body: str) -> dict[str, Any]:
    """Gemma 4's ``key:<|"|>text<|"|>,n:3`` arguments: quoted strings are literal, other values JSON."""
    values, pos = {}, 0
    while (key := _GEMMA_KEY.match(body, pos)) is not None:
        pos = key.end()
        if body.startswith(_GEMMA_QUOTE, pos):
            close = body.find(_GEMMA_QUOTE, pos + len(_GEMMA_QUOTE))
            if close < 0:
                break
            values[key[1]] = body[pos + len(_GEMMA_QUOTE) : close]
            pos = close + len(_GEMMA_QUOTE)
        else:
            scalar = _GEMMA_SCALAR.match(body, pos)
            if scalar is None:  # never: the pattern matches the empty string
                break
            values[key[1]] = _json_or_text(scalar[0].strip())
            pos = scalar.end()
    return values


_DECODERS: dict[str, Callable[[str], Any]] = {
    "call": _json_sequence,
    "json": lambda body: json.loads(_unfenced(body)),
    "pythonic": _pythonic,
    "gemma": _gemma,
}

#: Parameters whose schema type is not a string: their element text is JSON (``30``, ``[1, 20]``).
_TYPED: dict[str, frozenset[str]] = {
    d["function"]["name"]: frozenset(
        k for k, v in d["function"]["parameters"]["properties"].items() if v.get("type") != "string"
    )
    for d in tool_schemas()
}


def _json_or_text(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _parameters(parameter: tuple[re.Pattern[str], re.Pattern[str]], trim: bool, tool: str, body: str) -> dict[str, Any]:
    """Return the parameter elements of a call's body: text for string parameters, JSON for the others."""
    typed = _TYPED.get(tool.removeprefix("functions."), frozenset())
    values: dict[str, Any] = {}
    for start, end in _spans(body, *parameter):
        if end is None:
            break
        value = body[start.end() : end.start()]
        if trim:
            value = value.removeprefix("\n").removesuffix("\n")
        key = start["key"].strip()
        values[key] = _json_or_text(value.strip()) if key in typed else value
    return values


def pythonic_calls(text: str) -> list[dict[str, Any]] | None:
    """Return the calls of a Python-style call list (``[bash(command="ls")]``, Llama 3.2 and 4), or None.

    Only literal keyword arguments are accepted; nothing is evaluated.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(tree, ast.List) or not tree.elts:
        return None
    calls = []
    for node in tree.elts:
        if not isinstance(node, ast.Call) or node.args or not isinstance(node.func, (ast.Name, ast.Attribute)):
            return None
        try:
            arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return None
        calls.append({"name": ast.unparse(node.func), "arguments": arguments})
    return calls
