"""Actions of the project-building environments, as strict pydantic models.

An action may be given as a dict (``{"tool": "bash", "command": "ls"}``), as one of these models, or as a JSON
string of the dict. :func:`parse_action` turns any of them into a model or raises :class:`ActionParseError`
(a ``ValueError``) whose message the environment returns to the agent as an observation.

Limits (characters): command 100,000; file content 5,000,000; question 4,000; path 4,096.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from icae_env.errors import IcaeEnvError

__all__ = [
    "Action",
    "ActionParseError",
    "Ask",
    "Bash",
    "StrReplace",
    "Submit",
    "View",
    "WriteFile",
    "parse_action",
    "MAX_COMMAND_CHARS",
    "MAX_CONTENT_CHARS",
    "MAX_QUESTION_CHARS",
    "MAX_TIMEOUT_S",
]

MAX_COMMAND_CHARS = 100_000
MAX_CONTENT_CHARS = 5_000_000
MAX_QUESTION_CHARS = 4_000
MAX_PATH_CHARS = 4_096
MAX_TIMEOUT_S = 3_600.0


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Bash(_Action):
    """Run a shell command in the workspace session (``cd`` and variables persist)."""

    tool: Literal["bash"] = "bash"
    command: str = Field(min_length=1, max_length=MAX_COMMAND_CHARS)
    timeout: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_S)


class WriteFile(_Action):
    """Create or replace a workspace file."""

    tool: Literal["write_file"] = "write_file"
    path: str = Field(min_length=1, max_length=MAX_PATH_CHARS)
    content: str = Field(max_length=MAX_CONTENT_CHARS)


class StrReplace(_Action):
    """Replace the single occurrence of ``old`` with ``new`` in a workspace file."""

    tool: Literal["str_replace"] = "str_replace"
    path: str = Field(min_length=1, max_length=MAX_PATH_CHARS)
    old: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    new: str = Field(max_length=MAX_CONTENT_CHARS)


class View(_Action):
    """Show a file with line numbers (optionally lines ``range[0]..range[1]``, 1-based) or list a directory."""

    tool: Literal["view"] = "view"
    path: str = Field(default=".", min_length=1, max_length=MAX_PATH_CHARS)
    range: tuple[int, int] | None = None


class Ask(_Action):
    """Ask the User Agent a clarification question (counts against the question budget)."""

    tool: Literal["ask"] = "ask"
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)


class Submit(_Action):
    """Deliver the workspace: it is scored in a fresh sandbox and the episode ends."""

    tool: Literal["submit"] = "submit"


Action = Annotated[Bash | WriteFile | StrReplace | View | Ask | Submit, Field(discriminator="tool")]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(Action)
TOOLS = ("bash", "write_file", "str_replace", "view", "ask", "submit")


class ActionParseError(IcaeEnvError, ValueError):
    """The action is malformed; the message says what was expected and what was received."""


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"][1:]) or "action"
    if first["type"] == "union_tag_invalid" or first["type"] == "union_tag_not_found":
        return f"unknown or missing tool; expected 'tool' to be one of {', '.join(TOOLS)}"
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    return f"{where}: {message}"


def parse_action(raw: Any) -> Any:
    """Return the action model for ``raw`` (dict, action model or JSON string).

    Raises:
        ActionParseError: with a one-line explanation when ``raw`` is not a well-formed action.
    """
    if isinstance(raw, _Action):
        return raw
    if isinstance(raw, (str, bytes)):
        try:
            raw = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ActionParseError(f"action is not valid JSON ({exc.__class__.__name__}: {exc})") from None
    if not isinstance(raw, dict):
        raise ActionParseError(f"action must be a dict, an action model or a JSON object; got {type(raw).__name__}")
    try:
        return _ADAPTER.validate_python(raw)
    except ValidationError as exc:
        raise ActionParseError(_describe(exc)) from None
