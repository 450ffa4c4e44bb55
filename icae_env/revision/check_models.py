"""Frozen models of the checks that verify revision criteria: command, source, http, browser and judge checks.

Each check is a list of assertions (see :mod:`icae_env.revision.models` for how a verdict follows from them).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

__all__ = [
    "TextMatch",
    "CommandExpect",
    "CommandCheck",
    "SourceExpect",
    "SourceCheck",
    "HttpRequest",
    "HttpCheck",
    "BrowserAction",
    "BrowserExpect",
    "BrowserCheck",
    "JudgeCheck",
    "Check",
    "check_workspace_pattern",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


_JSON_PATH = re.compile(r"(?:[A-Za-z_][\w-]*|\[\d+\])(?:\.[A-Za-z_][\w-]*|\[\d+\])*")


def _check_json_path(value: str | None) -> str | None:
    if value not in (None, "") and not _JSON_PATH.fullmatch(value):
        raise ValueError('a json_path is dotted keys and [index] parts, e.g. items[0].id ("" for the whole value)')
    return value


def check_workspace_pattern(value: str) -> str:
    """Return ``value`` when it is a path or glob relative to the workspace (no ``..``), else raise ValueError."""
    parts = value.replace("\\", "/").split("/")
    if value.startswith("/") or ".." in parts or value.strip() in ("", "."):
        raise ValueError(f"must be a path or glob relative to the workspace, without '..'; got {value!r}")
    return value


def _check_regex(value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from None
    return value


class TextMatch(_Frozen):
    """A test of a text; every given field must hold.

    Attributes:
        equals: The whole text (trailing whitespace of both sides ignored).
        contains: A substring.
        not_contains: A substring that must be absent.
        regex: A Python regular expression searched in the text (``re.search``, multiline).
    """

    equals: str | None = None
    contains: str | None = None
    not_contains: str | None = None
    regex: str | None = None

    _regex = field_validator("regex")(_check_regex)

    @model_validator(mode="after")
    def _something(self) -> TextMatch:
        if all(v is None for v in (self.equals, self.contains, self.not_contains, self.regex)):
            raise ValueError("a text match needs equals, contains, not_contains or regex")
        return self


class CommandExpect(_Frozen):
    """One assertion about a command run: its exit code and/or its output."""

    exit_code: int | None = None
    stdout: TextMatch | None = None
    stderr: TextMatch | None = None

    @model_validator(mode="after")
    def _something(self) -> CommandExpect:
        if self.exit_code is None and self.stdout is None and self.stderr is None:
            raise ValueError("an expectation needs exit_code, stdout or stderr")
        return self


class CommandCheck(_Frozen):
    """Run a command in a fresh sandbox copy of the final workspace."""

    type: Literal["command"] = "command"
    run: str = Field(min_length=1)
    stdin: str | None = None
    timeout_s: float = Field(default=30.0, gt=0)
    expect: tuple[CommandExpect, ...] = Field(min_length=1)
    partial: bool = True


class SourceExpect(_Frozen):
    """One assertion about workspace files.

    Attributes:
        file: A path or glob relative to the workspace (``**`` allowed); globs must match at least one file.
        regex: A pattern that must be found in every matched file (or in none when ``absent``).
        absent: Invert ``regex``; or, without ``regex``, require that no file matches ``file``.
        json_path: A dotted path (``a.b[0].c``) into the file parsed as JSON; ``equals`` is its expected value.
        equals: The expected value at ``json_path``.
        unchanged: The file's bytes equal the starting workspace's (a diff is stored as evidence otherwise).
    """

    file: str = Field(min_length=1)
    regex: str | None = None
    absent: bool = False
    json_path: str | None = None
    equals: JsonValue = None
    unchanged: bool = False

    _regex = field_validator("regex")(_check_regex)
    _path = field_validator("json_path")(_check_json_path)
    _file = field_validator("file")(check_workspace_pattern)

    @model_validator(mode="after")
    def _consistent(self) -> SourceExpect:
        if self.equals is not None and self.json_path is None:
            raise ValueError("equals needs json_path")
        if self.unchanged and (self.regex or self.json_path or self.absent):
            raise ValueError("unchanged stands alone (no regex, json_path or absent)")
        return self


class SourceCheck(_Frozen):
    """Test files of the final workspace, optionally against the starting workspace."""

    type: Literal["source"] = "source"
    expect: tuple[SourceExpect, ...] = Field(min_length=1)
    partial: bool = True


class HttpRequest(_Frozen):
    """One request to the running app and what its response must show.

    Attributes:
        method: HTTP method.
        path: Route with query string, starting with ``/``.
        json_body: A JSON request body (sent with ``Content-Type: application/json``).
        body: A raw text request body (mutually exclusive with ``json_body``).
        headers: Extra request headers.
        status: The expected status code.
        text: A test of the response body as text.
        json_path: A dotted path into the response body parsed as JSON (``""`` for the whole body).
        equals: The expected value at ``json_path``.
    """

    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "GET"
    path: str = Field(pattern=r"^/")
    json_body: JsonValue = None
    body: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    status: int | None = None
    text: TextMatch | None = None
    json_path: str | None = None
    equals: JsonValue = None

    _path = field_validator("json_path")(_check_json_path)

    @model_validator(mode="after")
    def _consistent(self) -> HttpRequest:
        if self.json_body is not None and self.body is not None:
            raise ValueError("give json_body or body, not both")
        if self.equals is not None and self.json_path is None:
            raise ValueError("equals needs json_path")
        if self.status is None and self.text is None and self.json_path is None:
            raise ValueError("a request needs status, text or json_path to test")
        return self


class HttpCheck(_Frozen):
    """Start the app on a loopback port and send requests in order (each request is one assertion).

    ``timeout_s`` bounds each whole exchange (a response that trickles in is cut off).
    """

    type: Literal["http"] = "http"
    requests: tuple[HttpRequest, ...] = Field(min_length=1)
    timeout_s: float = Field(default=30.0, gt=0)
    partial: bool = True


class BrowserAction(_Frozen):
    """One recorded browser action.

    Attributes:
        do: ``click``, ``type`` (fill ``text``), ``press`` (a key such as ``Enter``), ``select`` (an option
            ``value``), ``check``/``uncheck`` (a checkbox), ``wait`` (for ``selector`` or ``ms`` milliseconds),
            ``goto`` (another ``path``).
        selector: A CSS selector (Playwright syntax).
    """

    do: Literal["click", "type", "press", "select", "check", "uncheck", "wait", "goto"]
    selector: str | None = None
    text: str | None = None
    key: str | None = None
    value: str | None = None
    ms: int | None = Field(default=None, ge=0, le=10_000)
    path: str | None = Field(default=None, pattern=r"^/")

    @model_validator(mode="after")
    def _arguments(self) -> BrowserAction:
        needs = {
            "click": ("selector",),
            "type": ("selector", "text"),
            "press": ("selector", "key"),
            "select": ("selector", "value"),
            "check": ("selector",),
            "uncheck": ("selector",),
            "goto": ("path",),
        }.get(self.do, ())
        missing = [name for name in needs if getattr(self, name) is None]
        if missing:
            raise ValueError(f"action {self.do!r} needs {', '.join(missing)}")
        if self.do == "wait" and self.selector is None and self.ms is None:
            raise ValueError("action 'wait' needs selector or ms")
        return self


class BrowserExpect(_Frozen):
    """One assertion about the page after the actions.

    Attributes:
        selector: A CSS selector; ``count`` tests how many elements match; the other tests use the first match.
        count: The expected number of matching elements.
        text: A test of the element's ``textContent`` (whitespace collapsed; text inside hidden descendants counts,
            so add ``visible: true`` where hidden text must not pass).
        attribute: An attribute name; ``value`` tests it (``None`` value: the attribute must be absent).
        style: A computed-style property (``display``, ``color`` ...); ``value`` tests it.
        value: The test of ``attribute`` or ``style``.
        visible: Whether the element must be visible.
    """

    selector: str = Field(min_length=1)
    count: int | None = Field(default=None, ge=0)
    text: TextMatch | None = None
    attribute: str | None = None
    style: str | None = None
    value: TextMatch | None = None
    visible: bool | None = None

    @model_validator(mode="after")
    def _consistent(self) -> BrowserExpect:
        if self.attribute and self.style:
            raise ValueError("give attribute or style, not both")
        if self.value is not None and not (self.attribute or self.style):
            raise ValueError("value needs attribute or style")
        if self.style and self.value is None:
            raise ValueError("style needs value")
        tests = (self.count, self.text, self.attribute, self.style, self.visible)
        if all(t is None for t in tests):
            raise ValueError("an expectation needs count, text, attribute, style or visible")
        if self.count is not None and any(t is not None for t in tests[1:]):
            raise ValueError("count stands alone (test the first match's text, attribute or style in another item)")
        return self


class BrowserCheck(_Frozen):
    """Load a page of the running app in headless Chromium, act, and test the page (screenshot + action log).

    ``timeout_s`` bounds the whole check: a page stuck in a script loop has its renderer killed then.
    """

    type: Literal["browser"] = "browser"
    path: str = Field(default="/", pattern=r"^/")
    viewport: tuple[int, int] = (1024, 768)
    timeout_s: float = Field(default=60.0, gt=0)
    actions: tuple[BrowserAction, ...] = ()
    expect: tuple[BrowserExpect, ...] = Field(min_length=1)
    partial: bool = True


class JudgeCheck(_Frozen):
    """Ask an LLM judge to grade the criterion from evidence, then ask a verifier to refute a PASS or PARTIAL.

    Attributes:
        files: Workspace files (paths or globs) shown to the judge.
        command: A command whose output is shown to the judge (run in a fresh sandbox copy).
        guidance: Extra grading guidance for the judge.
    """

    type: Literal["judge"] = "judge"
    files: tuple[str, ...] = ()
    command: str | None = None
    guidance: str = ""
    max_chars: int = Field(default=12_000, ge=1000)

    @field_validator("files")
    @classmethod
    def _relative(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(check_workspace_pattern(v) for v in value)

    @model_validator(mode="after")
    def _evidence(self) -> JudgeCheck:
        if not self.files and not self.command:
            raise ValueError("a judge check needs files or a command as evidence")
        return self


Check = Annotated[CommandCheck | SourceCheck | HttpCheck | BrowserCheck | JudgeCheck, Field(discriminator="type")]
