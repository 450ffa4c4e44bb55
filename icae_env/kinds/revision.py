"""Task kind ``revision`` (Co-Design Bench style): revise a runnable app; hidden acceptance criteria grade it.

Tasks are :class:`~icae_env.revision.RevisionTask` (built-in ``revision/<name>`` and revision packs). The workspace
starts with the task's runnable app and the request's attachments; evaluation grades a snapshot of the final
workspace on every criterion (:func:`icae_env.revision.grade`: command, source, http and browser checks, and an
optional LLM judge), keeping each criterion's evidence under ``<evidence_dir>/<task>-<episode>/``.

Reward components: ``graded`` (PASS 1, PARTIAL 0.5, averaged), ``strict`` (PASS share), ``full_pass`` (1 when every
criterion passes) and ``task_coverage`` (of the clarification records, when the task has any). Default weights:
Graded completion.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from icae_env.core import EvalContext, Score, Solution, Transcript, WeightedReward
from icae_env.errors import ArgumentError
from icae_env.revision.grading import grade, temp_evidence_dir
from icae_env.revision.llm_judge import make_judge
from icae_env.revision.models import RevisionTask
from icae_env.revision.pack import is_revision_task, list_revision_tasks, load_revision_task
from icae_env.revision.report import RevisionReport
from icae_env.sandbox.base import Sandbox
from icae_env.tasks.privileged import golden_actions, hidden_paths, oracle_questions, pack_ref

__all__ = ["REVISION_INTRO", "CriterionSummary", "RevisionKind", "RevisionRewardConfig", "RevisionScore"]

REVISION_INTRO = """{request}
---
{attachments}The workspace (the shell starts in it) holds the current app ({language}); there is no network.
{app}Tools: bash(command, timeout?), write_file(path, content), str_replace(path, old, new), view(path, range?),
ask(question), submit(). Paths are relative to the workspace root.
{ask}Revise the app as the user asks and keep everything they did not ask to change. submit() checks the workspace
against the user's hidden acceptance criteria in a fresh sandbox and ends the episode.
"""


class RevisionRewardConfig(WeightedReward):
    """Weights of the ``revision`` episode reward over the task's scores (default: Graded completion)."""

    graded: float = 1.0
    strict: float = 0.0
    full_pass: float = 0.0
    task_coverage: float = 0.0


class CriterionSummary(BaseModel):
    """One criterion's verdict as ``info["score"]`` shows it: id, category and verdict, never the criterion."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    category: str
    verdict: str
    reason: str
    valid: bool
    graded: bool
    evidence: tuple[str, ...]


class RevisionScore(Score):
    """A ``revision`` episode's score: the header plus Strict / Graded / Full-pass and every criterion's verdict."""

    kind: Literal["revision"] = "revision"
    strict: float = 0.0
    graded: float = 0.0
    full_pass: bool = False
    infra_failure: str | None = None
    criteria: tuple[CriterionSummary, ...] = ()
    evidence_dir: str = ""

    def record(self) -> dict[str, Any]:
        """Strict, Graded, Full-pass, the infrastructure failure and the coverage, besides the header's rates."""
        return {
            "strict": self.strict,
            "graded": self.graded,
            "full_pass": self.full_pass,
            "infra_failure": self.infra_failure,
            "task_coverage": self.components.get("task_coverage"),
        }


def _attachment_lines(task: RevisionTask) -> str:
    if not task.attachments:
        return ""
    lines = [f"- {a.dest}" + (f": {a.description}" if a.description else "") for a in task.attachments]
    return "Attachments (in the workspace):\n" + "\n".join(lines) + "\n---\n"


class RevisionKind:
    """The ``revision`` task kind (see the module docstring).

    Args:
        evidence_dir: Where evidence is kept (``<dir>/<task>-<episode>/``); None: a temporary directory removed
            by :meth:`close`.
        judge: The judge of ``judge`` checks: None (they stay ungraded, and are reported so), a registered name
            (``"llm"``) or a judge such as :class:`~icae_env.revision.llm_judge.Judge`.
        judge_options: Keyword arguments of a judge given by name (``llm``: ``base_url``, ``model``, ``api_key``,
            ``cache_path``, ``timeout``; unset endpoint options from ``OPENAI_*``).

    Raises:
        JudgeOptionError: for an option the judge does not take.
        EndpointConfigError: for ``judge="llm"`` without a base URL or model.

    Attributes:
        last_report: The full report of the last evaluation (reasons, assertions, evidence paths).
    """

    name: ClassVar[str] = "revision"
    task_type: ClassVar[type] = RevisionTask
    reward_type: ClassVar[type[WeightedReward]] = RevisionRewardConfig
    score_type: ClassVar[type[Score]] = RevisionScore

    def __init__(
        self, evidence_dir: str | Path | None = None, judge: Any = None, judge_options: dict[str, Any] | None = None
    ) -> None:
        self.evidence_dir = Path(evidence_dir) if evidence_dir is not None else None
        self.judge = make_judge(judge, judge_options)
        self.last_report: RevisionReport | None = None
        self._temp_evidence: Path | None = None

    def list_tasks(self) -> list[str]:
        """The built-in revision tasks (``revision/<name>``)."""
        return list_revision_tasks()

    def owns(self, ref: str) -> bool:
        """``revision/<name>``, or a pack whose task has acceptance criteria."""
        return is_revision_task(ref)

    def load(self, ref: str | Path) -> RevisionTask:
        """Load a built-in revision task or a revision pack."""
        return load_revision_task(ref)

    def ref(self, task: RevisionTask) -> str:
        """The bare id of a built-in revision task, else its pack directory."""
        return pack_ref(task)

    def setup(self, task: RevisionTask, box: Sandbox) -> None:
        """Copy the starting app and the request's attachments into the workspace."""
        box.copy_in(task.start_dir)
        for attachment in task.attachments:
            box.copy_in(Path(attachment.source), attachment.dest)

    def intro(self, task: RevisionTask, level: str, budget: int) -> str:
        """The request, the attachments, how to start the app, and whether the user takes questions."""
        app = f"Start it with: {task.app.start} (the port in {{port}} and $PORT).\n" if task.app else ""
        ask = (
            f"You may ask the user {budget} clarification questions with ask(question).\n"
            if budget
            else "The user is not available for further questions (ask() is refused).\n"
        )
        return REVISION_INTRO.format(
            request=task.request.strip(), attachments=_attachment_lines(task), language=task.language, app=app, ask=ask
        )

    def _episode_evidence(self, task: RevisionTask, episode: int) -> Path:
        """Create and return an episode's evidence directory (``<task>-<episode>``, suffixed when taken)."""
        if self.evidence_dir is None and self._temp_evidence is None:
            self._temp_evidence = temp_evidence_dir()
        base = self.evidence_dir or self._temp_evidence
        assert base is not None  # noqa: S101
        base.mkdir(parents=True, exist_ok=True)
        name = f"{task.id}-{episode:04d}"
        for suffix in ("", *(f"-{n}" for n in range(2, 10_000))):
            try:
                (base / (name + suffix)).mkdir()
            except FileExistsError:
                continue
            return base / (name + suffix)
        raise ArgumentError(f"no free evidence directory for {name} under {base}")

    def evaluate(
        self, task: RevisionTask, level: str, snapshot: Path, transcript: Transcript, context: EvalContext
    ) -> Score:
        """Grade every criterion on fresh copies of the snapshot; keep the evidence."""
        evidence = self._episode_evidence(task, context.episode)
        report = grade(task, snapshot, sandbox=context.sandbox, evidence_dir=evidence, judge=self.judge)
        self.last_report = report
        stats = transcript.stats(task.user_agent_data(level))
        components = {**report.scores(), "task_coverage": stats.task_coverage / 100.0}
        root = Path(report.evidence_dir)
        criteria = tuple(
            CriterionSummary(
                id=c.id,
                category=c.category,
                verdict=c.verdict.value,
                reason=c.reason,
                valid=c.valid,
                graded=c.graded,
                evidence=tuple(str(root / e) for e in c.evidence),
            )
            for c in report.criteria
        )
        verdicts = {name: getattr(report, name) for name in ("strict", "graded", "full_pass", "infra_failure")}
        reward = context.reward.total(components)
        header = {"reward": reward, "components": components, "interaction": stats, "duration_s": report.duration_s}
        fields = {**header, **verdicts, "criteria": criteria, "evidence_dir": report.evidence_dir}
        return RevisionScore.model_validate(fields)

    def progress(self, task: RevisionTask, level: str, snapshot: Path, context: EvalContext) -> float | None:
        """Revision tasks have no tests the agent can see: no progress measure."""
        return None

    def cheat(self, task: RevisionTask, level: str) -> Solution:
        """The clarification records' first triggers, then the golden revision's changes over the start."""
        return Solution(
            questions=oracle_questions(task.user_agent_data(level)),
            actions=golden_actions(task),
        )

    def hidden_paths(self, task: RevisionTask) -> tuple[Path, ...]:
        """The revision pack (criteria, golden revision)."""
        return hidden_paths(task, task.golden_dir)

    def close(self) -> None:
        """Remove the temporary evidence directory (kept evidence stays); safe to call twice."""
        temp, self._temp_evidence = self._temp_evidence, None
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
