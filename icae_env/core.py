"""The contract of icae-env: task kinds, scores, solutions, transcripts and their interaction metrics.

An **episode** is one task at one level. The agent sees what the task kind's :meth:`TaskKind.intro` gives and
what its actions produce, never the task's hidden data (User Agent records, hidden test cases, acceptance
criteria, golden solution); a grounded User Agent answers its questions from the level's records only.

A **task kind** (:class:`TaskKind`) is the plug-in for one family of tasks (``build``: ICAE-Bench project
building; ``revision``: Co-Design Bench app revisions). It lists and loads its tasks, fills a fresh workspace
(*setup*), writes the first observation (*intro*), scores a finished episode (*evaluate*: a pure function of task,
level, a sanitised snapshot of the final workspace and the :class:`Transcript`, returning a :class:`Score`), hands
oracle agents the privileged :class:`Solution` (*cheat*, after BrowserGym), names the host paths that must stay
invisible inside sandboxes and releases what it holds (*close*). Kinds are chosen by name from
:data:`icae_env.registration.TASK_KINDS`; adding one is one module plus one registration row.

A **score** carries one header (kind, reward, components, interaction, duration); each kind's score type adds its
fields and names the :class:`~icae_env.run.EpisodeResult` fields it fills (:meth:`Score.record`). The reward is
the kind's :class:`WeightedReward` over the components; ``info["score"]`` is the score's JSON form.

A **transcript** (:class:`Transcript`) is what happened between the agent and the User Agent: the counted
questions (:class:`Turn`) and the steps taken; ICAE's interaction metrics of it are an :class:`InteractionStats`.

This module depends on nothing else in the package but :mod:`icae_env.errors` (the sandbox types in the signatures
below are named for type checkers only). The base of every environment, which puts these parts together, is
:class:`icae_env.envs.base.IcaeEnv`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:  # named in signatures only; importing this module loads no other part of the package
    from icae_env.sandbox.base import Sandbox
    from icae_env.sandbox.spec import SandboxSpec

__all__ = [
    "EvalContext",
    "InteractionStats",
    "Record",
    "Records",
    "Score",
    "Solution",
    "TaskKind",
    "Transcript",
    "Turn",
    "WeightedReward",
    "hit_ids",
    "interaction_stats",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class WeightedReward(_Frozen):
    """Base of reward configurations: frozen weights whose field names are score components."""

    def total(self, components: Mapping[str, float]) -> float:
        """Return the weighted sum of ``components`` (components without a weight count 0)."""
        return float(sum(getattr(self, name, 0.0) * value for name, value in components.items()))


class Turn(_Frozen):
    """One counted question, with ICAE's per-turn fields."""

    turn: int
    remaining: int
    question: str
    answer: str
    triggers_hit: tuple[str, ...]
    fallback_triggered: bool


class InteractionStats(_Frozen):
    """ICAE's stats block plus the task-specific coverage (percentages in 0..100).

    Formulas (``docs/icae-format.md`` section 4): ``budget_usage_rate`` = 100 * turns / max_interactions;
    ``fallback_rate`` = 100 * fallback turns / turns; ``constraint_coverage`` = 100 * |distinct ids hit| / |hidden
    constraints of the level| (boilerplate and test-case records included). ``task_coverage`` counts only the task's
    own records (not ARCH/HARNESS boilerplate or test-case files): that is what signals requirement recovery.
    """

    constraint_coverage: float
    task_coverage: float
    fallback_rate: float
    budget_usage_rate: float
    turns_used: int
    max_interactions: int
    fallbacks: int
    triggers_hit: tuple[str, ...]
    missed_constraints: tuple[str, ...]
    total_constraints: int


class Record(Protocol):
    """What the interaction metrics read of a hidden record (a :class:`~icae_env.tasks.HiddenConstraint`)."""

    @property
    def constraint_id(self) -> str:
        """The record's id."""

    @property
    def is_task_specific(self) -> bool:
        """Whether it is one of the task's own facts (not boilerplate or a test-case file)."""


class Records(Protocol):
    """A level's hidden records (a :class:`~icae_env.tasks.UserAgentData`)."""

    @property
    def hidden_constraints(self) -> Sequence[Record]:
        """The records."""


def hit_ids(constraints: Sequence[Record], turns: Sequence[Turn]) -> list[str]:
    """Distinct ids of ``constraints`` hit by ``turns``, in first-hit order (pointers and the signature excluded)."""
    known = {c.constraint_id for c in constraints}
    seen: dict[str, None] = {}
    for turn in turns:
        for cid in turn.triggers_hit:
            if cid in known:
                seen.setdefault(cid, None)
    return list(seen)


def interaction_stats(constraints: Sequence[Record], turns: Sequence[Turn], budget: int) -> InteractionStats:
    """Return ICAE's interaction metrics of ``turns`` against ``constraints`` with ``budget`` questions."""
    hit = hit_ids(constraints, turns)
    total = len(constraints)
    own = [c.constraint_id for c in constraints if c.is_task_specific]
    fallbacks = sum(t.fallback_triggered for t in turns)
    return InteractionStats(
        constraint_coverage=100.0 * len(hit) / total if total else 0.0,
        task_coverage=100.0 * len(set(hit) & set(own)) / len(own) if own else 0.0,
        fallback_rate=100.0 * fallbacks / len(turns) if turns else 0.0,
        budget_usage_rate=100.0 * len(turns) / budget if budget else 0.0,
        turns_used=len(turns),
        max_interactions=budget,
        fallbacks=fallbacks,
        triggers_hit=tuple(hit),
        missed_constraints=tuple(c.constraint_id for c in constraints if c.constraint_id not in hit),
        total_constraints=total,
    )


class Transcript(_Frozen):
    """What happened between the agent and the User Agent in one episode (an input of evaluation).

    Attributes:
        budget: Questions the episode allowed.
        turns: The counted questions with their replies and the records each drew on.
        steps: Steps taken.
    """

    budget: int
    turns: tuple[Turn, ...] = ()
    steps: int = 0

    def stats(self, data: Records) -> InteractionStats:
        """Return ICAE's interaction metrics of this transcript against the records of ``data``."""
        return interaction_stats(data.hidden_constraints, self.turns, self.budget)


class Score(_Frozen):
    """The header every task kind's score shares; ``info["score"]`` is its JSON form.

    Attributes:
        kind: The task kind that scored the episode.
        reward: The episode reward: the env's :class:`WeightedReward` over ``components``.
        components: Every reward component, each in 0..1.
        interaction: ICAE's interaction metrics of the episode.
        duration_s: Seconds the evaluation took (a measurement; excluded from replays' comparisons).
    """

    kind: str
    reward: float = 0.0
    components: dict[str, float] = {}
    interaction: InteractionStats | None = None
    duration_s: float = 0.0

    def record(self) -> dict[str, Any]:
        """Return the :class:`~icae_env.run.EpisodeResult` fields of this kind (the run layer adds the header's)."""
        return {}


class Solution(_Frozen):
    """The privileged solution of one task at one level: what an oracle agent may be handed (BrowserGym's cheat).

    Attributes:
        questions: Questions that reveal the level's hidden records, task-specific ones first.
        actions: Actions (dicts for ``env.step``) that deliver the golden solution; ``submit`` is not included.
    """

    questions: tuple[str, ...] = ()
    actions: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class EvalContext:
    """What evaluation may use besides task, level, snapshot and transcript.

    Attributes:
        sandbox: The sandbox spec for fresh sandboxes (scoring runs the delivery in new ones).
        reward: The reward weights (of the kind's reward type).
        episode: Which episode of this env it is (1-based; names per-episode evidence directories).
    """

    sandbox: SandboxSpec
    reward: WeightedReward
    episode: int = 1


@runtime_checkable
class TaskKind(Protocol):
    """A family of tasks: the plug-in interface (see the module docstring). Instances are made per env.

    Its task objects are frozen data the envs read only through ``id``, ``language``, ``origin``, ``levels``,
    ``prd(level)`` and ``user_agent_data(level)``; everything else about them is the kind's business.

    Attributes:
        name: The kind's registered name.
        task_type: The class of its task objects.
        reward_type: The class of its reward weights (the env's ``reward=`` argument).
        score_type: The class of its scores.
    """

    name: ClassVar[str]
    task_type: ClassVar[type]
    reward_type: ClassVar[type[WeightedReward]]
    score_type: ClassVar[type[Score]]

    def list_tasks(self) -> list[str]:
        """Names of the kind's built-in tasks (what its suite word expands to)."""

    def owns(self, ref: str) -> bool:
        """Whether the task name or pack path ``ref`` is one of this kind's tasks."""

    def load(self, ref: str | Path) -> Any:
        """Load a task by name or pack path (raises ``TaskNotFoundError`` / ``TaskValidationError``)."""

    def ref(self, task: Any) -> str:
        """A name or path that :meth:`load` turns back into ``task`` (what trajectories record)."""

    def setup(self, task: Any, box: Sandbox) -> None:
        """Fill the fresh, started workspace of an episode (starting files, attachments)."""

    def intro(self, task: Any, level: str, budget: int) -> str:
        """The first observation's text: what the agent is told."""

    def evaluate(self, task: Any, level: str, snapshot: Path, transcript: Transcript, context: EvalContext) -> Score:
        """Score a finished episode from a sanitised snapshot of its final workspace (never the live one)."""

    def progress(self, task: Any, level: str, snapshot: Path, context: EvalContext) -> float | None:
        """A measure of progress the agent can see for itself (ICAE's Public pass rate); None when there is none."""

    def cheat(self, task: Any, level: str) -> Solution:
        """The privileged solution, for oracle agents only."""

    def hidden_paths(self, task: Any) -> tuple[Path, ...]:
        """Host paths that must stay invisible inside the agent's sandbox (the task pack, the golden solution)."""

    def close(self) -> None:
        """Release what the kind holds for its env (temporary evidence ...); safe to call twice."""
