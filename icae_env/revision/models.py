"""Frozen data models of revision tasks (Co-Design Bench style).

A revision task starts from a runnable application, states a user's change request and judges the final workspace
against hidden acceptance criteria. Each criterion carries one executable check
(:mod:`icae_env.revision.check_models`); a check is a list of assertions, and its verdict is PASS when every
assertion holds, PARTIAL when some hold and the check allows partial credit, FAIL otherwise.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from icae_env.revision.check_models import Check, check_workspace_pattern
from icae_env.tasks.models import ContextPointer, HiddenConstraint, UserAgentData

__all__ = [
    "Category",
    "Verdict",
    "Criterion",
    "Attachment",
    "AppSpec",
    "Clarifications",
    "RevisionTask",
    "EVIDENCE_CATEGORIES",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Category(str, Enum):
    """What a criterion is about (``preservation``: what must not change)."""

    FUNCTIONAL = "functional"
    VISUAL = "visual"
    INTERACTION = "interaction"
    CONTENT = "content"
    PRESERVATION = "preservation"


#: Categories whose verdict is only valid with a screenshot and an action log, as in the reference.
EVIDENCE_CATEGORIES = (Category.VISUAL, Category.INTERACTION)


class Verdict(str, Enum):
    """A criterion's outcome."""

    PASS = "PASS"
    PARTIAL = "PARTIAL"
    FAIL = "FAIL"


class Criterion(_Frozen):
    """One hidden acceptance criterion.

    Attributes:
        id: Unique within the task (``AC01`` ...).
        category: What it is about.
        text: The criterion as an expert wrote it.
        check: How it is verified.
    """

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    category: Category
    text: str = Field(min_length=1)
    check: Check

    @model_validator(mode="after")
    def _evidence(self) -> Criterion:
        if self.category in EVIDENCE_CATEGORIES and self.check.type != "browser":
            raise ValueError(
                f"a {self.category.value} criterion needs a browser check (its verdict needs a screenshot and an "
                f"action log), got a {self.check.type} check"
            )
        return self


class Attachment(_Frozen):
    """A file given with the request, copied into the workspace.

    Attributes:
        source: Path inside the task pack.
        dest: Path inside the workspace.
        description: What it is, as listed in the first observation.
    """

    source: str = Field(min_length=1)
    dest: str = Field(min_length=1)
    description: str = ""

    _dest = field_validator("dest")(check_workspace_pattern)


class AppSpec(_Frozen):
    """How to start the application.

    Attributes:
        start: Shell command run in the workspace; ``{port}`` is replaced by the port (also in ``$PORT``). The app
            must listen on 127.0.0.1.
        ready_path: Route polled until it answers (any status below 500).
        ready_timeout_s: How long to wait for it.
    """

    start: str = Field(min_length=1)
    ready_path: str = Field(default="/", pattern=r"^/")
    ready_timeout_s: float = Field(default=20.0, gt=0)


class Clarifications(_Frozen):
    """Records the User Agent may answer from (empty by default: the reference simulates no further feedback)."""

    hidden_constraints: tuple[HiddenConstraint, ...] = ()
    context_pointers: tuple[ContextPointer, ...] = ()
    fallback_response: str = "I don't have more details on that; please use your best judgement."


class RevisionTask(_Frozen):
    """A revision task: a runnable starting app, a request, attachments and hidden acceptance criteria.

    Attributes:
        id: Task id.
        title: Human-readable title.
        language: Main language of the app (``python``, ``javascript``, ``html``).
        request: The user's change request (what the agent sees).
        start_dir: The starting workspace (a runnable pre-edit app).
        golden_dir: A complete workspace after the golden revision, if available.
        attachments: Files given with the request.
        app: How to start the app (None for command-line apps).
        criteria: Hidden acceptance criteria.
        clarifications: What the User Agent may answer.
        origin: Where the task came from.
    """

    kind: Literal["revision"] = "revision"
    id: str = Field(min_length=1)
    title: str
    language: str = Field(min_length=1)
    request: str = Field(min_length=1)
    start_dir: Path
    golden_dir: Path | None = None
    attachments: tuple[Attachment, ...] = ()
    app: AppSpec | None = None
    criteria: tuple[Criterion, ...] = Field(min_length=1)
    clarifications: Clarifications = Clarifications()
    origin: str = ""

    @model_validator(mode="after")
    def _check(self) -> RevisionTask:
        seen: set[str] = set()
        for i, criterion in enumerate(self.criteria):
            if criterion.id in seen:
                raise ValueError(f"criteria[{i}].id: duplicate criterion id {criterion.id!r}")
            seen.add(criterion.id)
            if criterion.check.type in ("http", "browser") and self.app is None:
                raise ValueError(f"criteria[{i}].check: a {criterion.check.type} check needs the task's app")
        return self

    @property
    def levels(self) -> dict[str, None]:
        """Revision tasks have one level (``L1``): the request as written."""
        return {"L1": None}

    def prd(self, level: str | None = None) -> str:
        """Return the request (the revision counterpart of a PRD)."""
        return self.request

    def user_agent_data(self, level: str | None = None) -> UserAgentData:
        """Return what the User Agent may answer from."""
        return UserAgentData(
            task_id=self.id,
            level="L1",
            hidden_constraints=self.clarifications.hidden_constraints,
            context_pointers=self.clarifications.context_pointers,
            golden_api_signature="",
            fallback_response=self.clarifications.fallback_response,
        )
