"""The User Agent contract: a Protocol for simulated users and one for the routers that pick records.

A *router* maps a question to scored candidate documents; a *user agent* turns those into a reply, enforces the
budget and keeps the interaction log. Routers are interchangeable and chosen by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from icae_env.tasks.models import ConstraintKind

__all__ = ["Document", "Match", "Reply", "Router", "UserAgent", "DocKind", "routable_response"]


DocKind = str  # a ConstraintKind value, or "pointer" / "signature"
_GENERIC_PREFIXES = ("ARCH", "HARNESS", "TC_")
_TEST_CASE_RESPONSE_CHARS = 300


@dataclass(frozen=True)
class Document:
    """One thing a question can hit: a hidden record, a context pointer or the golden API signature.

    Attributes:
        doc_id: The constraint id for records; ``CONTEXT:<n>`` for pointers; ``API_SIGNATURE`` for the signature.
        kind: The record kind (``api``, ``test_cases`` ...) or ``pointer`` / ``signature``.
        triggers: Phrases that should hit it.
        response: The verbatim answer.
        is_constraint: Whether hitting it counts towards constraint coverage.
    """

    doc_id: str
    kind: DocKind
    triggers: tuple[str, ...]
    response: str
    is_constraint: bool = True

    @property
    def is_test_cases(self) -> bool:
        """Whether this is a whole test-case file record (counts as one point)."""
        return self.kind == ConstraintKind.TEST_CASES.value

    @property
    def is_task_specific(self) -> bool:
        """Whether this is one of the task's own records (:attr:`HiddenConstraint.is_task_specific`).

        ARCH/HARNESS boilerplate, test-case files, context pointers and the API signature are not.
        """
        return self.is_constraint and not self.is_test_cases and not self.doc_id.startswith(_GENERIC_PREFIXES)


def routable_response(doc: Document) -> str:
    """Return the part of a document's response that routers index (the head of a whole test-case file)."""
    return doc.response[:_TEST_CASE_RESPONSE_CHARS] if doc.is_test_cases else doc.response


@dataclass(frozen=True)
class Match:
    """A document a router found relevant, with its score (higher is better)."""

    index: int
    score: float


@runtime_checkable
class Router(Protocol):
    """Ranks documents for a question. Deterministic for a given index and question."""

    name: str

    def route(self, question: str) -> list[Match]:
        """Return the documents that clear the router's threshold, best first."""


class Reply(BaseModel):
    """The User Agent's answer to one question.

    Attributes:
        text: What the agent reads.
        constraint_ids: Ids of the documents the reply draws on, strongest first (pointers and the signature
            included, as ``CONTEXT:<n>`` and ``API_SIGNATURE``).
        fallback: Whether nothing matched and the fallback reply was given.
        remaining: Questions left after this one.
        refused: Whether the budget was exhausted (the question was not counted).
        truncated: Whether more than three points matched and only the first three were given.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    constraint_ids: tuple[str, ...] = ()
    fallback: bool = False
    remaining: int = 0
    refused: bool = False
    truncated: bool = False


@runtime_checkable
class UserAgent(Protocol):
    """A simulated user that answers clarification questions about one task at one level."""

    budget: int

    @property
    def remaining(self) -> int:
        """Questions left."""

    def ask(self, question: str) -> Reply:
        """Answer one question (counts against the budget unless refused)."""
