r"""Turn raw model output into one icae-env action dict.

A message must hold exactly one tool call, in any of the formats below: the native syntaxes of today's open models
(their chat templates, as vLLM and SGLang parse them), OpenAI JSON, and the tags and fences that
:func:`~wrappers.tool_schema.tool_instructions` teaches. Reasoning blocks before the call are ignored, so a call
that the model only considered is never run. Special tokens must be kept when decoding (``skip_special_tokens=
False``); when the chat template opens the reasoning block, pass its text as ``prefix``. Two calls, none, an
unknown tool, bad arguments or a block left open raise :class:`TextActionError`, whose ``hint`` tells the model
how to do better. The same table is in docs/text-actions.md; :mod:`wrappers.text_formats` and
:mod:`wrappers.text_reasoning` hold one code row per format.

==================  ==================================================================  ==============================
Format              One call, as the model writes it (who writes it)                    Arguments; several calls
==================  ==================================================================  ==============================
reasoning           <think>...</think> (DeepSeek-R1, Qwen3, GLM, Kimi K2, MiniMax-M2;   ignored before the first call,
                    only </think> when the chat template opened the block),             an unclosed one is an action
                    <thinking>...</thinking>, <reasoning>...</reasoning>,               error; any number
                    <seed:think>...</seed:think> (Seed-OSS), [THINK]...[/THINK]
                    (Magistral), ◁think▷...◁/think▷ (Kimi-VL),
                    <|START_THINKING|>...<|END_THINKING|> (Command A),
                    <|channel>thought...<channel|> (Gemma 4),
                    <|channel|>analysis<|message|>...<|end|> (gpt-oss)
OpenAI JSON         {"role": "assistant", "tool_calls": [...]}, one tool call           JSON string or object;
                    {"type": "function", "function": {"name", "arguments"}},            tool_calls items; in prose:
                    {"name", "arguments"} or {"tool", ...}, as a dict or JSON text,     one object naming a known
                    or in prose or an unlabelled fence (small models)                   tool, nothing else, each
Hermes              <tool_call>{"name": "bash", "arguments": {...}}</tool_call>         JSON object; one tag each
                    (Qwen2.5, Qwen3, Hermes, Granite 4, Nemotron; the closing tag may
                    be missing after complete JSON at the end)
Qwen3-Coder         <tool_call><function=bash><parameter=command>\nls\n</parameter>     text without its first and
                    </function></tool_call> (Qwen3-Coder, Qwen3.5; Seed-OSS writes      last newline, JSON if not a
                    it in <seed:tool_call>)                                             string; one tag each
GLM-4.5             <tool_call>bash<arg_key>command</arg_key><arg_value>ls</arg_value>  text, JSON if not a string;
                    </tool_call> (GLM-4.5 to GLM-5; 4.5 and 4.6 add newlines)           one tag each
Anthropic           <function_calls><invoke name="bash"><parameter name="command">ls    text, JSON if not a string;
                    </parameter></invoke></function_calls> (Claude-style prompts;       one <invoke> each
                    MiniMax-M2 in <minimax:tool_call>, DeepSeek V3.2 and V4 in DSML)
DeepSeek V3         DeepSeek V3 and R1-0528 (V3.1 drops "function" and the fence):      JSON object; one call-begin
                    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>bash   token each
                    \n```json\n{...}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
Kimi K2             <|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0     JSON object; one
                    <|tool_call_argument_begin|>{...}<|tool_call_end|>                  <|tool_call_begin|> each
                    <|tool_calls_section_end|> (Kimi K2, K2 Thinking)
harmony             <|start|>assistant<|channel|>commentary to=functions.bash           JSON object; one message each
                    <|constrain|>json<|message|>{...}<|call|> (gpt-oss; to= may also
                    stand in the role part)
Mistral             [TOOL_CALLS]bash[ARGS]{...} (tokenizer v11+: Mistral Small 3.1+,    JSON object; [TOOL_CALLS]
                    Magistral, Devstral; v11 may add [CALL_ID]id before [ARGS])         each
Mistral before v11  [TOOL_CALLS] [{"name": "bash", "arguments": {...}}] (Mistral 7B     JSON object; list items
                    v0.3, Mixtral 8x22B, Mistral Nemo)
Llama 3             <|python_tag|>{"name": "bash", "parameters": {...}}<|eom_id|>, or   JSON object; separated by ;
                    the JSON alone (Llama 3.1 to 3.3)
Llama 4             [bash(command="ls")], the whole message or in <|python_start|>      Python literals, never run;
                    ...<|python_end|> (Llama 4; Llama 3.2 pythonic)                     list items
Granite 3           <|tool_call|>[{"name": "bash", "arguments": {...}}] (Granite 3.x)   JSON object; list items
Gemma 4             <|tool_call>call:bash{command:<|"|>ls<|"|>}<tool_call|> (Gemma 4)   text between <|"|>, other
                                                                                        values JSON; one block each
icae tags           <bash>ls</bash>, <write_file path="a.py">...</write_file>,          attributes, child tags (<old>,
                    <str_replace path="a.py"><old>...</old><new>...</new>               <new>) and the body; one tag
                    </str_replace>, <view path="a.py" range="1,20"/>, <ask>...</ask>,   each
                    <submit/>, <function_call>{JSON call}</function_call> (any model
                    given tool_instructions())
fenced block        ```bash (also sh, shell, console, zsh; a "$ " prompt on every line   the body and info string; one
                    is dropped), ```json (or tool_call, function_call) holding a JSON   fence each
                    call, ```write_file path=a.py (any model)
==================  ==================================================================  ==============================

A block in a programming language (```python) is not an action: nothing says which file it is. The error says so
and shows how to save it with write_file.

Example:
    >>> parse_text_action("Let me look.\n<bash>ls -la</bash>")
    {'tool': 'bash', 'command': 'ls -la'}
    >>> parse_text_action('{"name": "ask", "arguments": "{\\"question\\": \\"Which format?\\"}"}')
    {'tool': 'ask', 'question': 'Which format?'}
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from icae_env.actions import MAX_CONTENT_CHARS
from icae_env.wrappers.text_calls import (
    JSON_HINT,
    JsonError,
    TextActionError,
    call_arguments,
    format_hint,
    json_problem,
    load_json,
    no_call,
    short,
    strip_prompts,
    to_action,
    unknown_tool,
)
from icae_env.wrappers.text_formats import decode, json_calls, native_calls, pythonic_calls
from icae_env.wrappers.text_reasoning import Reasoning, strip_reasoning
from icae_env.wrappers.text_scan import BASH_FENCES, JSON_WRAPPERS, Candidate, scan, unknown_tag
from icae_env.wrappers.tool_schema import MAIN_PARAMETER, TOOL_NAMES, check_tools, usage

__all__ = ["TextActionError", "parse_text_action", "content_text", "DEFAULT_MAX_CHARS", "format_hint"]

#: Longest accepted message: a whole file at the content limit plus room for the JSON around it.
DEFAULT_MAX_CHARS = MAX_CONTENT_CHARS + 100_000
_ATTRIBUTE = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))""")


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextActionError(
            f"the message is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
            "Send UTF-8 text; to write binary data, write base64 text and decode it with bash (base64 -d).",
        ) from None


def parse_text_action(
    raw: Any, tools: Sequence[str] | None = None, max_chars: int = DEFAULT_MAX_CHARS, prefix: str = ""
) -> dict[str, Any]:
    r"""Return the single action in ``raw`` as a JSON-able action dict (``{"tool": ..., ...}``).

    Args:
        raw: Model output: text, UTF-8 bytes, an assistant-message or tool-call dict, or an action model.
        tools: Tool names that may be called (default: all).
        max_chars: Longest accepted text.
        prefix: Text the chat template's generation prompt ends with and the output continues (``"<think>\n"``
            for templates that open the reasoning block), read as the start of a text message.

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
    return _from_text(prefix + raw, allowed)


def _unclosed_reasoning(kind: Reasoning) -> TextActionError:
    return TextActionError(
        f"the reasoning block {kind.opener} is not closed, so nothing in the message was run "
        "(was the output cut at the token limit?)",
        f"Keep the reasoning shorter and close it with {kind.closers[0]}; then write exactly one tool call.",
    )


def _from_text(raw: str, tools: tuple[str, ...]) -> dict[str, Any]:
    reasoned = strip_reasoning(raw)
    if reasoned.unclosed is not None:
        raise _unclosed_reasoning(reasoned.unclosed)
    text = reasoned.text
    stripped = text.strip()
    if not stripped:
        empty = "the message has reasoning but no tool call after it" if reasoned.blocks else "the message is empty"
        raise TextActionError(empty, format_hint(tools))
    json_error = None
    if stripped[0] in "{[":
        try:
            return _from_object(load_json(stripped), tools)
        except JsonError as exc:
            json_error = exc
            calls = pythonic_calls(stripped) if stripped[0] == "[" else None
            if calls is not None:
                return _from_object(calls, tools)
    candidates = scan(text, [*native_calls(text), *json_calls(text)])
    if not candidates:
        if json_error is not None:
            raise json_error
        unknown = unknown_tag(text)
        raise unknown_tool(unknown, tools) if unknown else no_call(text, tools)
    if len(candidates) > 1:
        names = ", ".join(short(_label(c)) for c in candidates[:5])
        raise TextActionError(
            f"the message has {len(candidates)} tool calls ({names}); send exactly one per message",
            "Send the first call now and the others in later messages, after reading each result.",
        )
    return _from_candidate(candidates[0], tools)


def _label(found: Candidate) -> str:
    """Name a call for the "several calls" message: its tool, else the tool its JSON payload names."""
    if found.name or found.kind not in (*_NATIVE, "json"):
        return (found.name or found.kind).removeprefix("functions.")
    try:
        payload = load_json(found.body) if found.kind == "json" else decode(found) if found.kind == "native" else None
    except (ValueError, RecursionError):
        payload = None
    name = _call_name(payload) if isinstance(payload, dict) else None
    return str(name or found.attrs).removeprefix("functions.")


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
        names = ", ".join(short(str(_call_name(c))) for c in calls[:5])
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
        keys = [short(str(k)) for k in list(call)[:8]]
        raise TextActionError(f"malformed tool call: no tool name (keys: {', '.join(keys)})", hint)
    if not isinstance(name, str) or not name.strip():
        raise TextActionError(
            f"malformed tool call: the tool name must be a non-empty string, got {short(repr(name))}", hint
        )
    return to_action(name.strip().removeprefix("functions."), call_arguments(name, arguments, hint), tools)


def _trim_body(body: str) -> str:
    """Drop the newline right after the opening tag or fence (the layout, not the content)."""
    return body[1:] if body.startswith("\n") else body


_NATIVE = ("native", "unclosed")


def _from_native(found: Candidate, tools: tuple[str, ...]) -> dict[str, Any]:
    """Turn a call in a model's own syntax into an action (see :mod:`wrappers.text_formats`)."""
    name = found.name.removeprefix("functions.")
    call = f"{found.attrs} call" + (f" to {short(name)!r}" if name else "")
    if found.kind == "unclosed":
        raise TextActionError(
            f"the {call} is not closed (was the output cut at the token limit?)",
            "Write the whole call, up to its closing tag, in one message; write long files in parts.",
        )
    try:
        payload = decode(found)
    except (ValueError, RecursionError) as exc:
        raise JsonError(f"malformed tool call: the {call} does not parse ({json_problem(exc)})", JSON_HINT) from None
    if not name:
        return _from_object(payload, tools)
    hint = f"Usage: {usage(name)}." if name in TOOL_NAMES else format_hint(tools)
    return to_action(name, _coerce(name, call_arguments(name, payload, hint)), tools)


def _from_candidate(found: Candidate, tools: tuple[str, ...]) -> dict[str, Any]:
    """Turn one tag, fence or native call into an action: a JSON call, or the tool's arguments."""
    if found.kind in _NATIVE:
        return _from_native(found, tools)
    if found.kind == "json" or found.name in JSON_WRAPPERS:
        return _from_object(load_json(found.body.strip()), tools)
    name = "bash" if found.kind == "fence" and found.name in BASH_FENCES else found.name
    if name not in tools:
        raise unknown_tool(name, tools)
    arguments = _attributes(found.attrs, unescape=found.kind == "tag")
    children = {} if found.kind == "fence" else _children(name, found.body)
    main = MAIN_PARAMETER[name]
    if children:
        arguments.update(children)
    elif main is not None and found.body:
        arguments[main] = _trim_body(found.body) if main == "content" else found.body.strip()
    if found.kind == "fence" and name == "bash" and isinstance(arguments.get("command"), str):
        arguments["command"] = strip_prompts(arguments["command"])
    return to_action(name, _coerce(name, arguments), tools)


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
