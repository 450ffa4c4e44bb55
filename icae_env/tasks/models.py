"""Frozen task data models.

A :class:`Task` is pure data: the PRD at each level, the hidden User Agent Data of each level, the test tiers
and where the golden solution lives. Models are frozen and reject unknown fields; runtime episode state lives
elsewhere and never mutates a task.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

from icae_env.errors import ArgumentError

__all__ = [
    "LEVELS",
    "TIERS",
    "TIER_DIRS",
    "Level",
    "Tier",
    "ConstraintKind",
    "HiddenConstraint",
    "ContextPointer",
    "LevelSpec",
    "UserAgentData",
    "TestCase",
    "CaseFile",
    "TestTiers",
    "Runtime",
    "GoldenFile",
    "Task",
    "case_text",
]

Level = Literal["L1", "L2", "L3", "ground"]
Tier = Literal["public", "native", "enhanced"]
LEVELS: tuple[Level, ...] = ("L1", "L2", "L3", "ground")
TIERS: tuple[Tier, ...] = ("public", "native", "enhanced")
TIER_DIRS: dict[Tier, str] = {
    "public": "public_test_cases",
    "native": "test_cases",
    "enhanced": "enhanced_test_cases",
}
MIN_TRIGGERS = 3


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ConstraintKind(str, Enum):
    """What a hidden record is about."""

    API = "api"
    EDGE = "edge"
    ARCH = "arch"
    PROTOCOL = "protocol"
    BEHAVIOR = "behavior"
    LITERAL = "literal"
    TEST_CASES = "test_cases"


class HiddenConstraint(_Frozen):
    """One User Agent Data record: a hidden fact and the questions that should reveal it.

    Attributes:
        constraint_id: Unique id within a level (``C001``, ``ARCH001``, ``TC_<stem>``, ``L3_001`` ...).
        kind: What the record is about.
        trigger_keywords: At least three phrasings of a question that should hit this record.
        oracle_response: The verbatim answer (may be empty: some ICAE L3 literals are empty strings).
    """

    constraint_id: str = Field(min_length=1)
    kind: ConstraintKind = ConstraintKind.BEHAVIOR
    trigger_keywords: tuple[str, ...]
    oracle_response: str

    @field_validator("trigger_keywords")
    @classmethod
    def _enough_triggers(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        phrases = [v for v in value if v.strip()]
        if len(phrases) < MIN_TRIGGERS:
            raise ValueError(f"needs at least {MIN_TRIGGERS} non-empty trigger phrases, got {len(phrases)}")
        return value

    @property
    def is_task_specific(self) -> bool:
        """Whether this record is one of the task's own facts (not ARCH/HARNESS boilerplate or a test file)."""
        return self.kind not in (ConstraintKind.TEST_CASES,) and not self.constraint_id.startswith(
            ("ARCH", "HARNESS", "TC_")
        )


class ContextPointer(_Frozen):
    """A vague PRD phrase and what it actually means."""

    vague_reference: str = Field(min_length=1)
    actual_meaning: str


class LevelSpec(_Frozen):
    """What the agent sees and what the User Agent may reveal at one level.

    Attributes:
        prd: The PRD text shown to the agent.
        hidden_constraints: The records hidden at this level, in ICAE order.
        context_pointers: Vague phrases of this level's PRD and their meaning.
        golden_api_signature: Answer to interface-design questions ("" when the level gives none).
        fallback_response: Verbatim reply for questions that hit nothing.
    """

    prd: str
    hidden_constraints: tuple[HiddenConstraint, ...] = ()
    context_pointers: tuple[ContextPointer, ...] = ()
    golden_api_signature: str = ""
    fallback_response: str = ""

    @model_validator(mode="after")
    def _unique_ids(self) -> LevelSpec:
        seen: set[str] = set()
        for i, record in enumerate(self.hidden_constraints):
            if record.constraint_id in seen:
                raise ValueError(
                    f"hidden_constraints[{i}].constraint_id: duplicate constraint id {record.constraint_id!r}"
                )
            seen.add(record.constraint_id)
        return self


class UserAgentData(_Frozen):
    """The grounded User Agent's view of one level: the records it may answer from."""

    task_id: str
    level: Level
    hidden_constraints: tuple[HiddenConstraint, ...]
    context_pointers: tuple[ContextPointer, ...]
    golden_api_signature: str
    fallback_response: str


class TestCase(_Frozen):
    """One black-box case: ``input`` is fed as JSON on stdin; stdout must equal ``expected_output``."""

    __test__ = False  # not a pytest class

    input: JsonValue
    expected_output: JsonValue = None

    @property
    def expected_text(self) -> str:
        """The expected stdout as text (non-strings compare as their ``json.dumps``)."""
        return case_text(self.expected_output)


def case_text(value: Any) -> str:
    """Return ``value`` as ICAE compares it: strings as they are, anything else as ``json.dumps``."""
    return value if isinstance(value, str) else json.dumps(value)


class CaseFile(_Frozen):
    """One ICAE case file (``<stem>.json``): a description and its cases."""

    stem: str = Field(min_length=1)
    description: str = ""
    cases: tuple[TestCase, ...]

    def to_json(self, *, with_expected: bool = True) -> dict[str, Any]:
        """Return the file's ICAE JSON form, optionally without ``expected_output`` (as the scorer injects it)."""
        cases = [
            {"input": c.input, "expected_output": c.expected_output} if with_expected else {"input": c.input}
            for c in self.cases
        ]
        return {"description": self.description, "cases": cases}


class TestTiers(_Frozen):
    """The three ICAE test tiers. Only ``public`` may reach the agent."""

    __test__ = False

    public: tuple[CaseFile, ...] = ()
    native: tuple[CaseFile, ...] = ()
    enhanced: tuple[CaseFile, ...] = ()

    def tier(self, name: Tier) -> tuple[CaseFile, ...]:
        """Return the case files of tier ``name``."""
        if name not in TIERS:
            raise ArgumentError(f"unknown tier {name!r}; expected one of {TIERS}")
        return getattr(self, name)

    def case_count(self, name: Tier) -> int:
        """Return the number of cases in tier ``name``."""
        return sum(len(f.cases) for f in self.tier(name))


class Runtime(_Frozen):
    """The toolchain a task needs and the container image that provides it."""

    toolchain: tuple[str, ...]
    image: str


class GoldenFile(_Frozen):
    """One file of a golden solution held in memory (generated tasks carry their golden this way).

    Attributes:
        path: Path relative to the repository root (``/``-separated, no ``..``).
        content: The file's text.
        executable: Whether the file is executable (``rcb_tests/test.sh``).
    """

    path: str = Field(min_length=1)
    content: str
    executable: bool = False

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        if value.startswith("/") or ".." in value.split("/"):
            raise ValueError(f"must be a path relative to the repository root, without '..'; got {value!r}")
        return value


class Task(_Frozen):
    """A complete task: PRDs per level, hidden User Agent Data per level, test tiers, golden solution.

    Attributes:
        id: Task id (``semver-range``, ``realcode@001`` ...).
        title: Human-readable title.
        language: Implementation language (lower case: ``python``, ``javascript`` ...).
        runtime: Toolchain and image.
        levels: Level name to :class:`LevelSpec`; at least one level.
        tests: The test tiers.
        golden_dir: Directory of the golden solution, if available.
        golden_files: The golden solution held in memory instead (generated tasks); see :func:`golden_workspace`.
        start_dir: Directory of the starting workspace (revision tasks), if any.
        case_timeout_s: Time limit for one case when the scorer isolates cases; also how long the harness may go
            without a new output file.
        tier_timeout_s: Time limit for one tier run.
        first_output_s: Extra time the harness has before its first output file (room for a build step).
        default_level: The level used when none is given.
        origin: Where the task came from (``builtin``, a pack path, or an ICAE data root).
        notes: What an importer normalised while loading.
        meta: Free-form JSON facts about the task (a generated task's family, split, index, knobs and canary;
            an ICAE-Bench import's ``total_code_files`` and ``total_lines_of_code``, the release's structural
            denominators).
    """

    id: str = Field(min_length=1)
    title: str
    language: str
    runtime: Runtime
    levels: dict[Level, LevelSpec]
    tests: TestTiers
    golden_dir: Path | None = None
    golden_files: tuple[GoldenFile, ...] = ()
    start_dir: Path | None = None
    case_timeout_s: float = Field(default=10.0, gt=0)
    tier_timeout_s: float = Field(default=600.0, gt=0)
    first_output_s: float = Field(default=30.0, ge=0)
    default_level: Level = "L1"
    origin: str = ""
    notes: tuple[str, ...] = ()
    meta: dict[str, JsonValue] = {}

    @model_validator(mode="after")
    def _check(self) -> Task:
        if not self.levels:
            raise ValueError("levels: a task needs at least one level")
        if self.default_level not in self.levels:
            raise ValueError(f"default_level: {self.default_level!r} not in levels {sorted(self.levels)}")
        return self

    @property
    def available_tiers(self) -> tuple[Tier, ...]:
        """Tiers that hold at least one case."""
        return tuple(t for t in TIERS if self.tests.tier(t))

    def level(self, level: str | None = None) -> LevelSpec:
        """Return the spec of ``level`` (default level when None).

        Raises:
            ValueError: if the task has no such level.
        """
        name = level or self.default_level
        if name not in self.levels:
            raise ArgumentError(f"task {self.id!r} has no level {name!r}; available: {sorted(self.levels)}")
        return self.levels[name]

    def prd(self, level: str | None = None) -> str:
        """Return the PRD text at ``level``."""
        return self.level(level).prd

    def user_agent_data(self, level: str | None = None) -> UserAgentData:
        """Return what the User Agent may answer from at ``level``."""
        spec = self.level(level)
        return UserAgentData(
            task_id=self.id,
            level=level or self.default_level,  # type: ignore[arg-type]
            hidden_constraints=spec.hidden_constraints,
            context_pointers=spec.context_pointers,
            golden_api_signature=spec.golden_api_signature,
            fallback_response=spec.fallback_response,
        )
