"""``icae/Revision-v0``: revise a runnable app from a user's request; hidden acceptance criteria grade the result."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from icae_env.envs.workspace import WorkspaceEnv
from icae_env.kinds.revision import RevisionKind, RevisionRewardConfig
from icae_env.registration import DEFAULT_ROUTER
from icae_env.revision.models import RevisionTask
from icae_env.revision.report import RevisionReport
from icae_env.sandbox.spec import SandboxSpec

__all__ = ["RevisionEnv"]


class RevisionEnv(WorkspaceEnv):
    """Revise an existing runnable app; graded on hidden acceptance criteria (Co-Design Bench style).

    ## Description
    Each episode is one task of kind ``revision`` (:mod:`icae_env.kinds.revision`). The workspace starts with the
    task's runnable app and the request's attachments; the first observation is the request and the list of
    attachments. The agent edits and runs the app with the tools of :class:`~icae_env.envs.workspace.WorkspaceEnv`.
    ``submit`` grades a snapshot of the final workspace on every hidden criterion (command, source, http and
    browser checks, optionally an LLM judge) in fresh sandboxes; the criteria and golden revisions never enter the
    agent's sandbox, its observations or ``info``.

    ## Action Space / Observation / Info
    As :class:`~icae_env.envs.workspace.WorkspaceEnv`.

    ## Reward
    0 per step; on the final step :class:`~icae_env.kinds.revision.RevisionRewardConfig` weights over ``graded``
    (PASS 1, PARTIAL 0.5), ``strict``, ``full_pass`` and ``task_coverage`` (default: Graded completion).
    ``info["score"]`` holds every criterion's id, category, verdict and evidence paths.

    ## Termination/Truncation
    Terminated on ``submit``; truncated at ``max_steps`` or ``time_limit_s`` (still graded unless
    ``score_on_truncation=False``).

    ## Registered IDs
    ``icae/Revision-v0``.

    ## Change log
    v0: initial version.

    Args:
        task: A revision task name (``revision/<name>``), a pack path, a :class:`RevisionTask`, or a sequence.
        level: Always ``L1`` (revision tasks have one level; accepted for a uniform ``make`` signature).
        sandbox: A :class:`~icae_env.sandbox.SandboxSpec` or a backend name; ``sandbox_options`` lie over it.
        sandbox_options: Backend options.
        budget: Clarification questions (default 0: the reference simulates no further user feedback).
        max_steps: Steps before truncation.
        time_limit_s: Wall-clock seconds before truncation.
        reward: A :class:`RevisionRewardConfig` or a dict of its fields.
        score_on_truncation: Whether a truncated episode is graded.
        router: User Agent router name.
        evidence_dir: Where evidence is kept (``<dir>/<task>-<episode>/``); None: a temporary directory removed
            by ``close()``.
        judge: The judge of ``judge`` checks: None (they stay ungraded and are reported so in ``info["score"]``),
            ``"llm"`` (:class:`~icae_env.revision.llm_judge.Judge`, built with ``judge_options``) or a judge object.
        render_mode: None or ``"ansi"``.
        router_options: Keyword arguments of the router (``llm``: ``base_url``, ``model``, ``api_key``, ...).
        judge_options: Keyword arguments of a judge given by name (``llm``: ``base_url``, ``model``, ``api_key``,
            ``cache_path``, ``timeout``; unset endpoint options from ``OPENAI_*``).
    """

    def __init__(
        self,
        task: str | RevisionTask | Sequence[str | RevisionTask] = "revision/todo-filter",
        level: str = "L1",
        sandbox: SandboxSpec | str = "local",
        sandbox_options: dict[str, Any] | None = None,
        budget: int = 0,
        max_steps: int = 200,
        time_limit_s: float | None = None,
        reward: RevisionRewardConfig | dict[str, float] | None = None,
        score_on_truncation: bool = True,
        router: str = DEFAULT_ROUTER,
        evidence_dir: str | Path | None = None,
        judge: Any = None,
        render_mode: str | None = None,
        router_options: dict[str, Any] | None = None,
        judge_options: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(
            task, level, kind=RevisionKind(evidence_dir, judge, judge_options), sandbox=sandbox,
            sandbox_options=sandbox_options, budget=budget, max_steps=max_steps, time_limit_s=time_limit_s,
            reward=reward, score_on_truncation=score_on_truncation, router=router, render_mode=render_mode,
            router_options=router_options,
        )  # fmt: skip

    @property
    def last_report(self) -> RevisionReport | None:
        """The full report of the last grading (reasons, assertions, evidence paths), for inspection."""
        report: RevisionReport | None = getattr(self.kind, "last_report", None)
        return report
