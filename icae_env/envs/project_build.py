"""``icae/ProjectBuild-v0``: build a project from a fuzzy PRD, asking a grounded user for hidden requirements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from icae_env.envs.workspace import WorkspaceEnv
from icae_env.kinds.build import BuildKind, RewardConfig
from icae_env.registration import DEFAULT_ROUTER
from icae_env.sandbox.spec import SandboxSpec
from icae_env.scoring import ScoreLimits
from icae_env.tasks import Task

__all__ = ["ProjectBuildEnv"]


class ProjectBuildEnv(WorkspaceEnv):
    """Build a repository from a fuzzy PRD; the delivery is scored black-box on hidden test tiers.

    ## Description
    Each episode is one task of kind ``build`` (:mod:`icae_env.kinds.build`) at one level (L1 vaguest .. L3, or
    ground). The workspace starts empty (or with the task's starting files). The agent runs shell commands, edits
    files and asks a grounded User Agent that answers only from the level's hidden records; ``submit`` scores a
    snapshot of the workspace exactly as ICAE-Bench does.

    ## Action Space / Observation / Info
    As :class:`~icae_env.envs.workspace.WorkspaceEnv`.

    ## Reward
    0 per step; on the final step :class:`~icae_env.kinds.build.RewardConfig` weights (default
    ``overall + 0.2 * task_coverage``). ``info["score"]`` holds every component, tier and interaction metric.
    What counts as revealed: a record counts towards ``task_coverage`` once a reply has drawn on it.

    ## Termination/Truncation
    Terminated on ``submit``. Truncated at ``max_steps`` or after ``time_limit_s`` wall-clock seconds; a
    truncated episode is still scored unless ``score_on_truncation=False``.

    ## Registered IDs
    ``icae/ProjectBuild-v0``.

    ## Change log
    v0: initial version.

    Args:
        task: A task name (``builtin/<name>``), a pack path, a :class:`~icae_env.tasks.Task`, or a sequence of
            them (one is drawn per reset from the seeded generator).
        level: ``L1``, ``L2``, ``L3`` or ``ground``.
        sandbox: A :class:`~icae_env.sandbox.SandboxSpec` or a backend name; ``sandbox_options`` lie over it.
        sandbox_options: Backend options.
        budget: Clarification questions per episode.
        max_steps: Steps before truncation.
        time_limit_s: Wall-clock seconds before truncation (None: no limit).
        reward: Reward weights (a :class:`RewardConfig` or a dict of its fields).
        score_on_truncation: Whether a truncated episode is scored.
        router: User Agent router name.
        router_options: Keyword arguments of the router (``llm``: ``base_url``, ``model``, ``api_key``, ...).
        score_limits: Time limits of the scorer.
        render_mode: None or ``"ansi"`` (``render()`` returns the last observation text).
    """

    def __init__(
        self,
        task: str | Task | Sequence[str | Task] = "builtin/config-lint",
        level: str = "L1",
        sandbox: SandboxSpec | str = "local",
        sandbox_options: dict[str, Any] | None = None,
        budget: int = 16,
        max_steps: int = 200,
        time_limit_s: float | None = None,
        reward: RewardConfig | dict[str, float] | None = None,
        score_on_truncation: bool = True,
        router: str = DEFAULT_ROUTER,
        score_limits: ScoreLimits | None = None,
        render_mode: str | None = None,
        router_options: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(
            task, level, kind=BuildKind(score_limits), sandbox=sandbox, sandbox_options=sandbox_options,
            budget=budget, max_steps=max_steps, time_limit_s=time_limit_s, reward=reward,
            score_on_truncation=score_on_truncation, router=router, render_mode=render_mode,
            router_options=router_options,
        )  # fmt: skip
