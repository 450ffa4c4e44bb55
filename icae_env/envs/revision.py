"""``icae/Revision-v0``: revise a runnable app from a user's request; hidden acceptance criteria grade the result."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from icae_env.envs.project_build import ProjectBuildEnv, final_workspace
from icae_env.envs.reward import WeightedReward
from icae_env.envs.selection import TaskPool
from icae_env.envs.state import EpisodeState
from icae_env.revision.grading import grade, temp_evidence_dir
from icae_env.revision.models import RevisionTask
from icae_env.revision.pack import load_revision_task
from icae_env.revision.report import RevisionReport
from icae_env.sandbox.base import Sandbox

__all__ = ["RevisionEnv", "RevisionRewardConfig", "REVISION_INTRO"]

REVISION_INTRO = """{request}
---
{attachments}The workspace (the shell starts in it) holds the current app ({language}); there is no network.
{app}Tools: bash(command, timeout?), write_file(path, content), str_replace(path, old, new), view(path, range?),
ask(question), submit(). Paths are relative to the workspace root.
{ask}Revise the app as the user asks and keep everything they did not ask to change. submit() checks the workspace
against the user's hidden acceptance criteria in a fresh sandbox and ends the episode.
"""


class RevisionRewardConfig(WeightedReward):
    """Weights of the episode reward over the task's scores (default: Graded completion)."""

    graded: float = 1.0
    strict: float = 0.0
    full_pass: float = 0.0
    task_coverage: float = 0.0


def _attachment_lines(task: RevisionTask) -> str:
    if not task.attachments:
        return ""
    lines = [f"- {a.dest}" + (f": {a.description}" if a.description else "") for a in task.attachments]
    return "Attachments (in the workspace):\n" + "\n".join(lines) + "\n---\n"


class RevisionEnv(ProjectBuildEnv):
    """Revise an existing runnable app; graded on hidden acceptance criteria (Co-Design Bench style).

    ## Description
    Each episode is one revision task. The workspace starts with the task's runnable app and the request's
    attachments; the first observation is the request and the list of attachments. The agent edits and runs the
    app with the same tools as :class:`~icae_env.envs.project_build.ProjectBuildEnv`. ``submit`` grades the final
    workspace on every hidden criterion (command, source, http and browser checks, optionally an LLM judge) in
    fresh sandboxes; the criteria and golden revisions never enter the agent's sandbox.

    ## Action Space / Observation
    As in ``icae/ProjectBuild-v0``.

    ## Reward
    0 per step; on the final step :class:`RevisionRewardConfig` weights over ``graded`` (PASS 1, PARTIAL 0.5),
    ``strict``, ``full_pass`` and ``task_coverage`` (default: Graded completion). ``info["score"]`` holds every
    criterion's verdict, reason and evidence paths.

    ## Termination/Truncation
    Terminated on ``submit``; truncated at ``max_steps`` or ``time_limit_s`` (still graded unless
    ``score_on_truncation=False``).

    ## Registered IDs
    ``icae/Revision-v0``.

    Args:
        task: A revision task name (``revision/<name>``), a pack path, a :class:`RevisionTask`, or a sequence.
        level: Always ``L1`` (revision tasks have one level; accepted for a uniform ``make`` signature).
        sandbox: Sandbox backend name; ``sandbox_options`` are passed to it.
        budget: Clarification questions (default 0: the reference simulates no further user feedback).
        max_steps: Steps before truncation.
        time_limit_s: Wall-clock seconds before truncation.
        reward: A :class:`RevisionRewardConfig` or a dict of its fields.
        score_on_truncation: Whether a truncated episode is graded.
        router: User Agent router name.
        evidence_dir: Where evidence is kept (``<dir>/<task>-<episode>/``); None: a temporary directory removed
            by ``close()``.
        judge: A :class:`~icae_env.revision.judge.Judge` for ``judge`` checks (None: those stay ungraded).
        render_mode: None or ``"ansi"``.
    """

    def __init__(
        self,
        task: str | RevisionTask | Sequence[str | RevisionTask] = "revision/todo-filter",
        level: str = "L1",
        sandbox: str = "local",
        sandbox_options: dict[str, Any] | None = None,
        budget: int = 0,
        max_steps: int = 200,
        time_limit_s: float | None = None,
        reward: RevisionRewardConfig | dict[str, float] | None = None,
        score_on_truncation: bool = True,
        router: str = "lexical",
        evidence_dir: str | Path | None = None,
        judge: Any = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            task=task,  # type: ignore[arg-type]
            level=level,
            sandbox=sandbox,
            sandbox_options=sandbox_options,
            budget=budget,
            max_steps=max_steps,
            time_limit_s=time_limit_s,
            score_on_truncation=score_on_truncation,
            router=router,
            render_mode=render_mode,
        )
        self.revision_reward = (
            reward if isinstance(reward, RevisionRewardConfig) else RevisionRewardConfig(**(reward or {}))
        )
        self.evidence_dir = Path(evidence_dir) if evidence_dir is not None else None
        self.judge = judge
        self._temp_evidence: Path | None = None
        self._episodes = 0
        self.last_report: RevisionReport | None = None

    # -- hooks ---------------------------------------------------------------------------------------------
    def _make_pool(self, task: Any) -> TaskPool:
        return TaskPool(task, loader=load_revision_task, task_type=RevisionTask)

    def _prepare_workspace(self, box: Sandbox, task: Any) -> None:
        box.copy_in(task.start_dir)
        for attachment in task.attachments:
            box.copy_in(Path(attachment.source), attachment.dest)
        self._episodes += 1

    def _intro(self, task: Any, level: str) -> str:
        app = f"Start it with: {task.app.start} (the port in {{port}} and $PORT).\n" if task.app else ""
        ask = (
            f"You may ask the user {self.budget} clarification questions with ask(question).\n"
            if self.budget
            else "The user is not available for further questions (ask() is refused).\n"
        )
        return REVISION_INTRO.format(
            request=task.request.strip(),
            attachments=_attachment_lines(task),
            language=task.language,
            app=app,
            ask=ask,
        )

    def _episode_evidence(self, task: RevisionTask) -> Path:
        """Create and return this episode's evidence directory (``<task>-<episode>``, suffixed when taken)."""
        if self.evidence_dir is not None:
            base = self.evidence_dir
        else:
            if self._temp_evidence is None:
                self._temp_evidence = temp_evidence_dir()
            base = self._temp_evidence
        base.mkdir(parents=True, exist_ok=True)
        name = f"{task.id}-{self._episodes:04d}"
        for suffix in ("", *(f"-{n}" for n in range(2, 10_000))):
            try:
                (base / (name + suffix)).mkdir()
            except FileExistsError:
                continue
            return base / (name + suffix)
        raise FileExistsError(f"no free evidence directory for {name} under {base}")

    def _evaluate(self, state: EpisodeState) -> tuple[float, dict[str, Any]]:
        task: RevisionTask = state.task  # type: ignore[assignment]
        host = getattr(state.sandbox, "host_workspace", None)  # grade() takes its own snapshot
        with nullcontext(Path(host)) if host is not None else final_workspace(state.sandbox) as workspace:
            report = grade(
                task,
                workspace,
                sandbox=self.sandbox_name,
                sandbox_options=self.sandbox_options,
                evidence_dir=self._episode_evidence(task),
                judge=self.judge,
            )
        self.last_report = report
        stats = state.user_agent.stats()
        components = {**report.scores(), "task_coverage": stats.task_coverage / 100.0}
        reward = self.revision_reward.total(components)
        root = Path(report.evidence_dir)
        criteria = [
            {
                "id": c.id,
                "category": c.category,
                "verdict": c.verdict.value,
                "reason": c.reason,
                "valid": c.valid,
                "graded": c.graded,
                "evidence": [str(root / e) for e in c.evidence],
            }
            for c in report.criteria
        ]
        return reward, {
            "reward": reward,
            "components": components,
            "strict": report.strict,
            "graded": report.graded,
            "full_pass": report.full_pass,
            "infra_failure": report.infra_failure,
            "criteria": criteria,
            "evidence_dir": report.evidence_dir,
            "interaction": stats.model_dump(mode="json"),
            "duration_s": report.duration_s,
        }

    def close(self) -> None:
        """Release the sandbox and the temporary evidence directory; safe to call twice."""
        super().close()
        temp, self._temp_evidence = self._temp_evidence, None
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
