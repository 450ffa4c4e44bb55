"""Carry out one parsed action against the sandbox or the User Agent and describe the outcome as text.

Agent mistakes never raise here: they come back as a :class:`ToolOutcome` with ``action_error`` set.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from icae_env.actions import Ask, Bash, StrReplace, View, WriteFile
from icae_env.errors import SandboxPathError
from icae_env.sandbox.base import Sandbox
from icae_env.spaces import MAX_OBSERVATION_CHARS
from icae_env.user_agent.base import Reply
from icae_env.user_agent.grounded import GroundedUserAgent

__all__ = ["ToolOutcome", "run_tool", "MAX_OBSERVATION_CHARS"]

_MAX_VIEW_CHARS = 100_000
_MAX_LIST_ENTRIES = 500


@dataclass
class ToolOutcome:
    """What an action produced.

    Attributes:
        output: Observation text.
        source: ``tool``, ``user`` or ``env``.
        exit_code: The command's exit status (0 for successful file tools, -1 when not applicable or failed).
        action_error: Why the action could not be carried out (None when it could).
        sandbox_s: Time spent in the sandbox.
        user_agent_s: Time spent in the User Agent.
        reply: The User Agent's reply (``ask`` only).
    """

    output: str
    source: str = "tool"
    exit_code: int = 0
    action_error: str | None = None
    sandbox_s: float = 0.0
    user_agent_s: float = 0.0
    reply: Reply | None = None


def _error(message: str) -> ToolOutcome:
    return ToolOutcome(output=f"Action error: {message}", source="env", exit_code=-1, action_error=message)


def _bash(box: Sandbox, action: Bash) -> ToolOutcome:
    result = box.exec(action.command, timeout=action.timeout)
    parts = [result.stdout]
    if result.stderr:
        parts.append(("" if not result.stdout or result.stdout.endswith("\n") else "\n") + result.stderr)
    if result.session_restarted:
        parts.append("\n[the shell session ended; a fresh one starts at the workspace root]")
    text = "".join(parts)
    if result.output_limited:
        return ToolOutcome(output=text, exit_code=124, action_error="command killed: its output was too large")
    if result.timed_out:
        return ToolOutcome(
            output=text, exit_code=124, action_error=f"command timed out after {result.duration_s:.1f} s"
        )
    return ToolOutcome(output=text, exit_code=max(-1, min(result.exit_code, 255)))


def _write(box: Sandbox, action: WriteFile) -> ToolOutcome:
    box.write_file(action.path, action.content)
    return ToolOutcome(output=f"Wrote {len(action.content)} characters to {action.path}")


def _replace(box: Sandbox, action: StrReplace) -> ToolOutcome:
    text = box.read_file(action.path).decode("utf-8", errors="surrogateescape")
    count = text.count(action.old)
    if count != 1:
        where = "no occurrence" if count == 0 else f"{count} occurrences"
        return _error(f"str_replace needs exactly one occurrence of `old` in {action.path}; found {where}")
    box.write_file(action.path, text.replace(action.old, action.new).encode("utf-8", errors="surrogateescape"))
    return ToolOutcome(output=f"Replaced 1 occurrence in {action.path}")


def _listing(box: Sandbox, path: str) -> ToolOutcome:
    root = shlex.quote(box.workdir)
    target = shlex.quote(path)
    command = (
        f"( cd {root} && find {target} -mindepth 1 -maxdepth 2 -not -path '*/.git/*' -printf '%y %p\\n' "
        f"| head -n {_MAX_LIST_ENTRIES} )"
    )
    result = box.exec(command, timeout=30)
    entries = [line.split(" ", 1) for line in result.stdout.splitlines() if " " in line]
    lines = sorted(f"{path}/" if kind == "d" else path for kind, path in entries)
    return ToolOutcome(output="\n".join(lines) + ("\n" if lines else "(empty directory)\n"))


def _view(box: Sandbox, action: View) -> ToolOutcome:
    try:
        data = box.read_file(action.path)
    except IsADirectoryError:
        return _listing(box, action.path)
    lines = data.decode("utf-8", errors="replace").splitlines()
    start, end = action.range or (1, len(lines))
    if start < 1 or end < start:
        return _error(f"view range must be 1 <= start <= end, got {list(action.range or ())}")
    shown = "".join(f"{n:6}\t{line}\n" for n, line in enumerate(lines[start - 1 : end], start=start))
    if len(shown) > _MAX_VIEW_CHARS:
        shown = shown[:_MAX_VIEW_CHARS] + f"\n[... truncated; view a smaller range of {len(lines)} lines ...]\n"
    return ToolOutcome(output=shown)


def _ask(agent: GroundedUserAgent, action: Ask) -> ToolOutcome:
    reply = agent.ask(action.question)
    return ToolOutcome(output=reply.text, source="user", exit_code=-1, reply=reply)


def run_tool(action: object, box: Sandbox, agent: GroundedUserAgent) -> ToolOutcome:
    """Carry out ``action`` (a parsed model other than Submit); never raises for agent mistakes."""
    started = time.perf_counter()
    try:
        if isinstance(action, Ask):
            outcome = _ask(agent, action)
            outcome.user_agent_s = time.perf_counter() - started
            return outcome
        handlers: dict[type, Callable[[Sandbox, Any], ToolOutcome]] = {
            Bash: _bash,
            WriteFile: _write,
            StrReplace: _replace,
            View: _view,
        }
        outcome = handlers[type(action)](box, action)
    except SandboxPathError as exc:
        outcome = _error(str(exc))
    except FileNotFoundError:
        outcome = _error(f"no such file or directory: {getattr(action, 'path', '?')}")
    except IsADirectoryError:
        outcome = _error(f"{getattr(action, 'path', '?')} is a directory")
    except NotADirectoryError:
        outcome = _error(f"a parent of {getattr(action, 'path', '?')} is not a directory")
    except OSError as exc:
        outcome = _error(f"{exc.strerror or exc} ({getattr(action, 'path', '?')})")
    outcome.sandbox_s = time.perf_counter() - started
    if len(outcome.output) > MAX_OBSERVATION_CHARS:
        outcome.output = outcome.output[:MAX_OBSERVATION_CHARS] + "\n[... observation truncated ...]\n"
    return outcome
