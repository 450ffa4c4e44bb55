"""The interaction log of a User Agent session; its metrics are :func:`icae_env.core.interaction_stats`."""

from __future__ import annotations

from dataclasses import dataclass, field

from icae_env.core import InteractionStats, Turn, hit_ids, interaction_stats
from icae_env.tasks.models import HiddenConstraint

__all__ = ["InteractionLog"]


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
        return hit_ids(self.constraints, self.turns)

    def stats(self) -> InteractionStats:
        """Return ICAE's metrics for the session so far."""
        return interaction_stats(self.constraints, self.turns, self.max_interactions)
