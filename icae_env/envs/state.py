"""The episode state of the workspace environments (rebuilt on every reset) and per-step timing records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from icae_env.envs.base import Episode

__all__ = ["WorkspaceEpisode", "Timing", "COUNTERS"]

COUNTERS = ("steps", "bash", "write_file", "str_replace", "view", "ask", "submit", "action_errors", "fallbacks")


@dataclass(frozen=True)
class Timing:
    """Seconds spent per component (one step, or the episode so far).

    Timing values are measurements, not state: they are excluded from equality, so that two runs of the same
    seed and actions compare equal (as ``gymnasium.utils.env_checker`` requires of ``info``).
    """

    sandbox_s: float = field(default=0.0, compare=False)
    user_agent_s: float = field(default=0.0, compare=False)
    scoring_s: float = field(default=0.0, compare=False)
    total_s: float = field(default=0.0, compare=False)

    def __add__(self, other: Timing) -> Timing:
        return Timing(
            self.sandbox_s + other.sandbox_s,
            self.user_agent_s + other.user_agent_s,
            self.scoring_s + other.scoring_s,
            self.total_s + other.total_s,
        )

    def as_dict(self) -> dict[str, float]:
        """Return the timings as a plain dict (for JSON)."""
        return {
            "sandbox_s": self.sandbox_s,
            "user_agent_s": self.user_agent_s,
            "scoring_s": self.scoring_s,
            "total_s": self.total_s,
        }


@dataclass
class WorkspaceEpisode(Episode):
    """An :class:`~icae_env.envs.base.Episode` with a sandbox: its handle, tool counters and timing."""

    sandbox: Any = None
    counters: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTERS, 0))
    timing: Timing = field(default_factory=Timing)
