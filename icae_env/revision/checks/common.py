"""What every check shares: the grading context, the outcome type and the assertion helpers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from icae_env.revision.check_models import TextMatch
from icae_env.revision.models import RevisionTask, Verdict
from icae_env.revision.report import AssertionResult
from icae_env.sandbox.base import Sandbox
from icae_env.sandbox.spec import SandboxSpec
from icae_env.tasks.privileged import hidden_paths

__all__ = ["CheckContext", "CheckOutcome", "match_text", "json_at", "fresh_copy", "short"]

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def short(value: Any, limit: int = 160) -> str:
    """Return ``repr(value)`` cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class CheckContext:
    """What a check may use.

    Attributes:
        task: The task.
        workspace: Host path of the final workspace (read-only use).
        evidence: This criterion's evidence directory (created).
        sandbox: The sandbox spec of fresh copies.
        browser: A shared browser session (created on first use by browser checks).
        judge: The LLM judge, when configured.
    """

    task: RevisionTask
    workspace: Path
    evidence: Path
    sandbox: SandboxSpec = field(default_factory=SandboxSpec)
    browser: Any = None
    judge: Any = None


@dataclass
class CheckOutcome:
    """What a check found.

    Attributes:
        assertions: One result per assertion, in order.
        evidence: Evidence files written (names inside the criterion's evidence directory).
        error: Why the check could not run (the app did not start, a command timed out ...); a FAIL.
        graded: False when the check could not be graded at all (no judge configured).
        verdict: A verdict given directly (the judge's), instead of one derived from the assertions.
    """

    assertions: list[AssertionResult] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    error: str | None = None
    graded: bool = True
    verdict: Verdict | None = None

    def add(self, passed: bool, detail: str) -> None:
        """Record one assertion."""
        self.assertions.append(AssertionResult(passed=bool(passed), detail=detail))


def match_text(text: str, match: TextMatch) -> tuple[bool, str]:
    """Test ``text`` against ``match``; return ``(passed, detail)``."""
    problems = []
    if match.equals is not None and text.rstrip() != match.equals.rstrip():
        problems.append(f"expected {short(match.equals)}, got {short(text)}")
    if match.contains is not None and match.contains not in text:
        problems.append(f"{short(match.contains)} not found in {short(text)}")
    if match.not_contains is not None and match.not_contains in text:
        problems.append(f"{short(match.not_contains)} found but must be absent")
    if match.regex is not None and not re.search(match.regex, text, re.MULTILINE):
        problems.append(f"/{match.regex}/ does not match {short(text)}")
    return (not problems, "; ".join(problems) or "matches")


def json_at(value: Any, path: str) -> Any:
    """Return the value at dotted ``path`` (``a.b[0].c``; ``""`` is the whole value).

    Raises:
        LookupError: when the path does not exist in ``value``.
    """
    current = value
    for key, index in _PATH_PART.findall(path):
        if key:
            if not isinstance(current, dict) or key not in current:
                raise LookupError(f"no key {key!r} at {path!r}")
            current = current[key]
        else:
            i = int(index)
            if not isinstance(current, list) or i >= len(current):
                raise LookupError(f"no index [{i}] at {path!r}")
            current = current[i]
    return current


def json_equals(actual: Any, expected: Any) -> bool:
    """Compare JSON values exactly, at any depth: ``1`` and ``1.0`` are equal, ``1`` and ``True`` are not."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(actual, (int, float)) and isinstance(expected, (int, float)):
        return actual == expected
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(json_equals(a, e) for a, e in zip(actual, expected, strict=True))
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(json_equals(actual[k], expected[k]) for k in actual)
    return type(actual) is type(expected) and actual == expected


@contextmanager
def fresh_copy(ctx: CheckContext) -> Iterator[Sandbox]:
    """Yield a started sandbox holding a fresh copy of the final workspace (closed afterwards)."""
    box = ctx.sandbox.make(language=ctx.task.language, hide=hidden_paths(ctx.task, ctx.task.golden_dir))
    try:
        box.start()
        box.copy_in(ctx.workspace)
        yield box
    finally:
        box.close()
