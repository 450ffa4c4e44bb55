"""Interaction log and ICAE's interaction metrics.

Formulas (``../shared/icae-format.md`` section 4): budget_usage_rate = 100 * turns / max_interactions;
fallback_rate = 100 * fallback turns / turns; constraint_coverage = 100 * |distinct ids hit| / |hidden
constraints of the level| (boilerplate and test-case records included). ``task_coverage`` counts only the task's
own records (not ARCH/HARNESS boilerplate or test-case files): that is what signals requirement recovery.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from icae_env.tasks.models import HiddenConstraint

__all__ = ["Turn", "InteractionLog", "InteractionStats"]


class Turn(BaseModel):
    """One counted question, with ICAE's per-turn fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: int
    remaining: int
    question: str
    answer: str
    triggers_hit: tuple[str, ...]
    fallback_triggered: bool


class InteractionStats(BaseModel):
    """ICAE's stats block plus the task-specific coverage (percentages in 0..100)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

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


@dataclass
class InteractionLog:
    """The turns of one session and the records they can hit."""

    constraints: tuple[HiddenConstraint, ...]
    max_interactions: int
    turns: list[Turn] = field(default_factory=list)

    def record(self, turn: Turn) -> None:
        """Append a counted turn."""
        self.turns.append(turn)

    def hit_ids(self) -> list[str]:
        """Distinct constraint ids hit so far, in first-hit order (pointers and the signature excluded)."""
        known = {c.constraint_id for c in self.constraints}
        seen: dict[str, None] = {}
        for turn in self.turns:
            for cid in turn.triggers_hit:
                if cid in known:
                    seen.setdefault(cid, None)
        return list(seen)

    def stats(self) -> InteractionStats:
        """Return ICAE's metrics for the session so far."""
        hit = self.hit_ids()
        total = len(self.constraints)
        own = [c.constraint_id for c in self.constraints if c.is_task_specific]
        turns = len(self.turns)
        fallbacks = sum(t.fallback_triggered for t in self.turns)
        return InteractionStats(
            constraint_coverage=100.0 * len(hit) / total if total else 0.0,
            task_coverage=100.0 * len(set(hit) & set(own)) / len(own) if own else 0.0,
            fallback_rate=100.0 * fallbacks / turns if turns else 0.0,
            budget_usage_rate=100.0 * turns / self.max_interactions if self.max_interactions else 0.0,
            turns_used=turns,
            max_interactions=self.max_interactions,
            fallbacks=fallbacks,
            triggers_hit=tuple(hit),
            missed_constraints=tuple(c.constraint_id for c in self.constraints if c.constraint_id not in hit),
            total_constraints=total,
        )
