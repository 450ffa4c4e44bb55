r"""Find tool tags and fenced blocks in model text, in time linear in its length (no backtracking scans).

Example:
    >>> [(c.kind, c.name, c.body) for c in scan("Run it:\n```bash\nls\n```\n<ask>why?</ask>")]
    [('fence', 'bash', 'ls\n'), ('tag', 'ask', 'why?')]
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from icae_env.wrappers.tool_schema import TOOL_NAMES

__all__ = ["Candidate", "scan", "unknown_tag", "BASH_FENCES", "JSON_WRAPPERS"]

BASH_FENCES = frozenset({"bash", "sh", "shell", "console", "zsh"})
#: Fence info strings and tags whose body is a JSON tool call (the ``<tool_call>`` tag is a native syntax, found
#: by :mod:`wrappers.text_formats`).
JSON_WRAPPERS = ("tool_call", "function_call", "json")
_TAG_NAMES = "|".join(re.escape(n) for n in (*TOOL_NAMES, *JSON_WRAPPERS) if n != "tool_call")
_OPEN = re.compile(rf"<(?P<name>{_TAG_NAMES})(?P<attrs>(?:\s[^<>]*)?/?)>")
_CLOSE = re.compile(rf"</(?P<name>{_TAG_NAMES})\s*>")
_FENCE_OPEN = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\r\n]*?)[ \t]*\r?\n?")
_ANY_OPEN = re.compile(r"<([A-Za-z_][\w-]*)((?:\s[^<>]*)?/?)>")
_ANY_CLOSE = re.compile(r"</([A-Za-z_][\w-]*)\s*>")


@dataclass(frozen=True)
class Candidate:
    """One call-like span of a message.

    Attributes:
        start: Offset of its first character.
        end: Offset after its last character.
        kind: ``tag``, ``fence``, ``native`` (a call in a model's own syntax) or ``unclosed`` (one never closed).
        name: The tag name, the first word of the fence's info string (lower case), or a native call's tool name
            (empty when its payload names the tool).
        attrs: Attribute text of the tag, the rest of the fence's info string, or the native syntax's name.
        body: Text between the opening and closing tag or fence lines, or a native call's payload.
    """

    start: int
    end: int
    kind: str
    name: str
    attrs: str
    body: str


def _tags(text: str) -> list[Candidate]:
    closings: dict[str, list[tuple[int, int]]] = {}
    for m in _CLOSE.finditer(text):
        closings.setdefault(m["name"], []).append((m.start(), m.end()))
    found = []
    for m in _OPEN.finditer(text):
        name, attrs = m["name"], m["attrs"]
        if attrs.rstrip().endswith("/"):
            found.append(Candidate(m.start(), m.end(), "tag", name, attrs.rstrip()[:-1], ""))
            continue
        spans = closings.get(name, [])
        i = bisect.bisect_left(spans, (m.end(), -1))
        if i < len(spans):
            close_start, close_end = spans[i]
            found.append(Candidate(m.start(), close_end, "tag", name, attrs, text[m.end() : close_start]))
    return found


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    indent = len(line) - len(line.lstrip(" "))
    return bool(stripped) and set(stripped) == {fence[0]} and len(stripped) >= len(fence) and indent <= 3


def _fences(text: str) -> list[Candidate]:
    """CommonMark-style fences: a closing line holds only the fence character, at least as many times."""
    found: list[Candidate] = []
    offset, opened = 0, None
    for line in text.splitlines(keepends=True):
        if opened is None:
            m = _FENCE_OPEN.fullmatch(line)
            if m:
                opened = (offset, offset + len(line), m["fence"], m["info"])
        else:
            start, body_start, fence, info = opened
            if _closes(line, fence):
                words = info.split()
                name, rest, body = (words[0].lower() if words else ""), " ".join(words[1:]), text[body_start:offset]
                found.append(Candidate(start, offset + len(line), "fence", name, rest, body))
                opened = None
        offset += len(line)
    return [c for c in found if c.name in BASH_FENCES or c.name in JSON_WRAPPERS or c.name in TOOL_NAMES]


def scan(text: str, extra: Sequence[Candidate] = ()) -> list[Candidate]:
    """Return the tool tags and action fences of ``text`` and the ``extra`` spans, outermost only, in order."""
    found = sorted([*_tags(text), *_fences(text), *extra], key=lambda c: (c.start, -c.end))
    outer: list[Candidate] = []
    reach = -1
    for candidate in found:
        if candidate.end <= reach:
            continue
        outer.append(candidate)
        reach = max(reach, candidate.end)
    return outer


def unknown_tag(text: str) -> str | None:
    """Return the name of the first tag-like element (``<x/>`` or ``<x>`` with a ``</x>`` somewhere), if any."""
    closed = {m[1] for m in _ANY_CLOSE.finditer(text)}
    for m in _ANY_OPEN.finditer(text):
        if m[1] in closed or (m[2] or "").rstrip().endswith("/"):
            return m[1]
    return None
