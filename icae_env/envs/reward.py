"""Episode reward: a documented, configurable weighted sum of score components.

Components (all in 0..1):

* ``overall``: ICAE Overall, (Native + Enhanced passed) / (Native + Enhanced total); for a task without hidden
  tiers (an ICAE-Bench task loaded without its ``rcb_tests_repos`` download) the Public rate stands in;
* ``public``, ``native``, ``enhanced``: per-tier pass rates (0 when the tier is absent);
* ``task_coverage``: share of the task's own hidden constraints hit by questions (no boilerplate, no test files);
* ``constraint_coverage``: ICAE's coverage over every hidden record of the level.

Default: ``overall + 0.2 * task_coverage``. Per-step rewards are 0; shaping belongs to a wrapper.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from icae_env.scoring.report import ScoreReport
from icae_env.user_agent.metrics import InteractionStats

__all__ = ["WeightedReward", "RewardConfig", "reward_components", "score_info"]


class WeightedReward(BaseModel):
    """Base of reward configurations: frozen weights whose fields name score components."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def total(self, components: dict[str, float]) -> float:
        """Return the weighted sum of ``components``."""
        return float(sum(getattr(self, name) * value for name, value in components.items()))


class RewardConfig(WeightedReward):
    """Weights of the episode reward (see the module docstring)."""

    overall: float = 1.0
    task_coverage: float = 0.2
    constraint_coverage: float = 0.0
    public: float = 0.0
    native: float = 0.0
    enhanced: float = 0.0


def reward_components(report: ScoreReport, stats: InteractionStats) -> dict[str, float]:
    """Return every reward component for a scored episode."""
    rates = {tier: report.rate(tier) or 0.0 for tier in ("public", "native", "enhanced")}
    overall = report.overall if report.overall is not None else rates["public"]
    return {
        "overall": float(overall),
        **rates,
        "task_coverage": stats.task_coverage / 100.0,
        "constraint_coverage": stats.constraint_coverage / 100.0,
    }


def score_info(report: ScoreReport, stats: InteractionStats, components: dict[str, float], reward: float) -> dict:
    """Return the JSON-able ``info["score"]`` block: reward, components, tiers, interaction and structure."""
    tiers: dict[str, Any] = {
        name: {"passed": t.passed, "total": t.total, "rate": t.rate, "failure_reason": t.failure_reason}
        for name, t in report.tiers.items()
    }
    return {
        "reward": reward,
        "components": dict(components),
        "overall": report.overall,
        "hidden_passed": report.hidden_passed,
        "hidden_total": report.hidden_total,
        "tiers": tiers,
        "interaction": stats.model_dump(mode="json"),
        "structure": report.structure.model_dump(mode="json") if report.structure else None,
        "duration_s": report.duration_s,
    }
