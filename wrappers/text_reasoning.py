r"""Reasoning blocks (``<think>``, harmony's analysis channel ...): found so that action parsing ignores them.

A reasoning block counts when it opens before the message's first tool call (models reason first, then act), so
a ``<think>`` inside a file being written stays part of the file. ``</think>`` with no ``<think>`` before it closes a
block that the chat template opened (DeepSeek-R1, Qwen3 thinking and GLM-4.7 end their generation prompt
with ``<think>``): everything before it is reasoning. A block that is never closed (the output was cut at the token
limit) is reported, so nothing in it runs.

Example:
    >>> strip_reasoning("<think>maybe <bash>rm -rf /</bash>? no.</think>\n<bash>ls</bash>").text
    '\n\n<bash>ls</bash>'
    >>> strip_reasoning("<think>I will run <bash>ls</bash>").unclosed.opener
    '<think>'
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from icae_env.wrappers.text_formats import native_calls
from icae_env.wrappers.text_scan import scan

__all__ = ["REASONING", "Reasoning", "Reasoned", "strip_reasoning"]


@dataclass(frozen=True)
class Reasoning:
    """One way models delimit reasoning.

    Attributes:
        opener: The opening text, as the format table names it.
        pattern: Where a block opens.
        closers: What closes it (the first one found).
        implicit: The chat template may open the block, so the output holds only the closer.
    """

    opener: str
    pattern: re.Pattern[str]
    closers: tuple[str, ...]
    implicit: bool = False


def _reasoning(opener: str, closers: tuple[str, ...], implicit: bool = False, pattern: str = "") -> Reasoning:
    return Reasoning(opener, re.compile(pattern or re.escape(opener)), closers, implicit)


#: The reasoning rows of the format table.
REASONING: tuple[Reasoning, ...] = (
    _reasoning("<think>", ("</think>",), implicit=True),
    _reasoning("<thinking>", ("</thinking>",)),
    _reasoning("<reasoning>", ("</reasoning>",)),
    _reasoning("<seed:think>", ("</seed:think>",), implicit=True),
    _reasoning("[THINK]", ("[/THINK]",)),
    _reasoning("◁think▷", ("◁/think▷",)),
    _reasoning("<|START_THINKING|>", ("<|END_THINKING|>",)),
    _reasoning("<|channel>thought", ("<channel|>",)),
    _reasoning(
        "<|channel|>analysis<|message|>",
        ("<|end|>", "<|start|>"),
        pattern=r"<\|channel\|>\s*analysis\s*<\|message\|>",
    ),
)
_ANY_OPENER = re.compile("|".join(f"(?:{r.pattern.pattern})" for r in REASONING))


@dataclass(frozen=True)
class Reasoned:
    """A message with its reasoning blocks taken out.

    Attributes:
        text: The message with each block replaced by a newline.
        blocks: How many blocks were taken out.
        unclosed: The kind of block left open (the message then has no action), or None.
    """

    text: str
    blocks: int
    unclosed: Reasoning | None = None


def _close(text: str, kind: Reasoning, start: int, missing: set[str]) -> int:
    """Return the offset after ``kind``'s first closer at or after ``start`` (-1 when there is none).

    A closer absent after ``start`` is absent after any later offset: it goes into ``missing`` and is not searched
    again, so that many blocks cost one pass over the text.
    """
    ends = []
    for closer in (c for c in kind.closers if c not in missing):
        at = text.find(closer, start)
        if at < 0:
            missing.add(closer)
        else:
            ends.append(at + len(closer))
    return min(ends) if ends else -1


def _implicit_end(text: str) -> int:
    """Return where a block opened by the chat template ends (0: none): a closer with no opener before it."""
    end = 0
    for kind in (r for r in REASONING if r.implicit):
        close = _close(text, kind, 0, set())
        if close >= 0 and kind.pattern.search(text, 0, close) is None:
            end = max(end, close)
    return end


def strip_reasoning(text: str) -> Reasoned:
    """Return ``text`` without the reasoning blocks that open before its first tool call.

    Args:
        text: Model output.

    Returns:
        The remaining text, the number of blocks taken out, and the kind of an unclosed block if one is left.
    """
    pos = _implicit_end(text)
    kept, blocks = (["\n"], 1) if pos else ([], 0)
    missing: set[str] = set()
    calls = [c.start for c in scan(text, native_calls(text)) if c.start >= pos] if _ANY_OPENER.search(text) else []
    while (opened := _ANY_OPENER.search(text, pos)) is not None:
        first_call = bisect.bisect_left(calls, pos)
        if first_call < len(calls) and calls[first_call] < opened.start():
            break
        kind = next(r for r in REASONING if r.pattern.match(text, opened.start()))
        end = _close(text, kind, opened.end(), missing)
        if end < 0:
            return Reasoned(text[: opened.start()], blocks, kind)
        kept += [text[pos : opened.start()], "\n"]
        pos, blocks = end, blocks + 1
    return Reasoned("".join(kept) + text[pos:], blocks)
