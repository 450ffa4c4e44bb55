"""Task kind ``build``: ICAE-Bench project building from a fuzzy PRD, scored black-box on hidden test tiers.

Tasks are :class:`~icae_env.tasks.Task` (built-in ``builtin/<name>``, task packs, ICAE-Bench imports named
``icae:<root>#<alias>``, see :mod:`icae_env.icae_bench.refs`). The
workspace starts empty (or with the task's starting files); evaluation replays the delivery's
``rcb_tests/test.sh`` on each tier in fresh sandboxes (:func:`icae_env.scoring.score`), exactly as ICAE-Bench does.

Reward components (all in 0..1): ``overall`` (ICAE Overall, (Native + Enhanced passed) / (Native + Enhanced
total); for a task without hidden tiers the Public rate stands in), ``public``/``native``/``enhanced`` (per-tier
rates, 0 when absent), ``task_coverage`` (share of the task's own hidden records the questions hit; no
boilerplate, no test files) and ``constraint_coverage`` (ICAE's coverage over every record of the level). Default
weights: ``overall + 0.2 * task_coverage``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from icae_env.core import EvalContext, InteractionStats, Score, Solution, Transcript, WeightedReward
from icae_env.errors import ArgumentError
from icae_env.icae_bench.load import ICAE_ORIGIN, is_icae_import, load_icae_bench
from icae_env.icae_bench.refs import icae_ref, is_icae_ref, parse_icae_ref, record_levels
from icae_env.sandbox.base import Sandbox
from icae_env.scoring import ScoreLimits, ScoreReport, StructureReport, score
from icae_env.tasks import Task, list_tasks, load_task
from icae_env.tasks.privileged import golden_actions, hidden_paths, oracle_questions, pack_ref

__all__ = [
    "DELIVERY",
    "DELIVERY_BY_PRD",
    "ICAE_DELIVERY",
    "INTRO",
    "BuildKind",
    "BuildScore",
    "RewardConfig",
    "TierSummary",
    "delivery_contract",
    "reward_components",
]

INTRO = """{prd}
---
You are building this project in an empty workspace (the shell starts in it) with a {language} runtime and no
network.
Tools: bash(command, timeout?), write_file(path, content), str_replace(path, old, new), view(path, range?),
ask(question), submit(). Paths are relative to the workspace root.
Ask the user clarification questions with ask(question): you have {budget} questions, and questions the user
cannot answer still count. submit() scores the workspace on hidden tests in a fresh sandbox and ends the episode.
{delivery}"""

_SCORING = """Scoring replaces rcb_tests/<dir>/ with the authoritative cases without expected_output, for <dir> =
public_test_cases (Public) and the hidden test_cases (Native) and enhanced_test_cases (Enhanced), and runs test.sh
in a fresh sandbox with no network, so it must build from what the repository holds. A case passes when its output
file equals expected_output exactly.
Public cases: {public}
"""

#: The delivery contract of every ``build`` task at every level, as ICAE-Bench's task prompt states it.
DELIVERY = (
    """---
Delivery protocol (mandatory): the repository must contain rcb_tests/test.sh. Run from the repository root as
`bash rcb_tests/test.sh --cases-dir <dir>` (default public_test_cases), it reads every rcb_tests/<dir>/*.json
({{"description", "cases": [{{"input", "expected_output"}}]}}), feeds each case's "input" as JSON on stdin to your
program (one process per case) and writes its raw stdout, nothing else, to rcb_tests/stdout/<dir>/<stem>@<i>.txt
(i = the case's zero-based index in its file).
"""
    + _SCORING
)

#: The contract when the PRD itself states the test.sh protocol (L3 and ground PRDs of the built-in tasks).
DELIVERY_BY_PRD = (
    """---
Delivery protocol (mandatory): rcb_tests/test.sh, run as `bash rcb_tests/test.sh --cases-dir <dir>` from the
repository root and writing its output exactly as the PRD describes.
"""
    + _SCORING
)

ICAE_DELIVERY = DELIVERY  # the name before 0.3.1
_PUBLIC_DIR = "rcb_tests/public_test_cases/"
_PROTOCOL_MARKS = ("rcb_tests/test.sh", "--cases-dir", "rcb_tests/stdout/")


def _public_cases(task: Task, level: str, prd: str) -> str:
    """Where the public cases of ``task`` at ``level`` are, and where they go."""
    if task.start_dir is not None and (task.start_dir / _PUBLIC_DIR).is_dir():
        return f"they are in the workspace, in {_PUBLIC_DIR}"
    records = [c for c in task.user_agent_data(level).hidden_constraints if c.constraint_id.startswith("TC_")]
    shown = "expected_output" in prd
    if not shown and not records and not task.tests.public:
        return "this task has none; test.sh must still run the hidden tiers."
    where = (
        "the PRD shows them" + ("; ask the user for the files it leaves out" if records else "")
        if shown
        else "they are not in the workspace: ask the user for them (one file per feature)"
    )
    return f"{where}; put them in {_PUBLIC_DIR}<stem>.json to run them."


def delivery_contract(task: Task, level: str) -> str:
    """Return the delivery contract of ``task`` at ``level`` (stated once: shorter when the PRD states test.sh).

    Args:
        task: The task.
        level: The level whose PRD the agent sees.
    """
    prd = task.prd(level)
    template = DELIVERY_BY_PRD if all(mark in prd for mark in _PROTOCOL_MARKS) else DELIVERY
    return template.format(public=_public_cases(task, level, prd))


class RewardConfig(WeightedReward):
    """Weights of the ``build`` episode reward (see the module docstring)."""

    overall: float = 1.0
    task_coverage: float = 0.2
    constraint_coverage: float = 0.0
    public: float = 0.0
    native: float = 0.0
    enhanced: float = 0.0


class TierSummary(BaseModel):
    """One tier's outcome as ``info["score"]`` shows it (no case contents: those are hidden)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    passed: int
    total: int
    rate: float | None
    failure_reason: str | None


class BuildScore(Score):
    """A ``build`` episode's score: the header plus ICAE's Overall, the tiers and the structural metrics."""

    kind: Literal["build"] = "build"
    overall: float | None = None
    hidden_passed: int = 0
    hidden_total: int = 0
    tiers: dict[str, TierSummary] = {}
    structure: StructureReport | None = None

    def record(self) -> dict[str, Any]:
        """Overall, the tier rates and the coverages, besides the header's interaction rates."""
        rates = {
            name: (self.tiers[name].rate if name in self.tiers else None) for name in ("public", "native", "enhanced")
        }
        overall = self.overall if self.overall is not None else self.components.get("overall")
        return {
            "overall": overall,
            **rates,
            "task_coverage": self.components.get("task_coverage"),
            "constraint_coverage": self.components.get("constraint_coverage"),
        }


def reward_components(report: ScoreReport, stats: InteractionStats) -> dict[str, float]:
    """Return every reward component of a scored episode."""
    rates = {tier: report.rate(tier) or 0.0 for tier in ("public", "native", "enhanced")}
    overall = report.overall if report.overall is not None else rates["public"]
    return {
        "overall": float(overall),
        **rates,
        "task_coverage": stats.task_coverage / 100.0,
        "constraint_coverage": stats.constraint_coverage / 100.0,
    }


class BuildKind:
    """The ``build`` task kind (see the module docstring).

    Args:
        score_limits: Time limits of the scorer (None: each task's own).
    """

    name: ClassVar[str] = "build"
    task_type: ClassVar[type] = Task
    reward_type: ClassVar[type[WeightedReward]] = RewardConfig
    score_type: ClassVar[type[Score]] = BuildScore

    def __init__(self, score_limits: ScoreLimits | None = None) -> None:
        self.score_limits = score_limits

    def list_tasks(self) -> list[str]:
        """The built-in tasks (``builtin/<name>``)."""
        return list_tasks()

    def owns(self, ref: str) -> bool:
        """Every task name or pack that no other kind claims (this kind is looked up last)."""
        return True

    def load(self, ref: str | Path) -> Any:
        """Load a built-in task, a pack, a generated task or distribution (``gen/...``) or an ICAE task.

        ICAE tasks are named ``icae:<root>#<alias>[#<level>]``.

        Raises:
            TaskNotFoundError: for an unknown built-in name or pack path.
            ArgumentError: for an ``icae:`` reference without an alias (a whole root is a list of tasks).
            IcaeImportError: when the ICAE task cannot be loaded.
        """
        if isinstance(ref, str) and ref.startswith("gen/"):
            from icae_env.families import load_generated

            return load_generated(ref)
        if not is_icae_ref(ref):
            return load_task(ref)
        root, alias, level = parse_icae_ref(str(ref))
        if alias is None:
            raise ArgumentError(f"{ref!r} names a whole data root; expand it with icae_env.run.resolve_tasks")
        folder = Path(root).expanduser()
        return load_icae_bench(folder, alias, level or next(iter(record_levels(folder, alias)), "L1"))

    def ref(self, task: Task) -> str:
        """The bare id of a built-in task, its pack directory, or ``icae:<root>#<alias>[#<level>]``."""
        if is_icae_import(task):
            return icae_ref(task.origin[len(ICAE_ORIGIN) :], task.id, task.default_level)
        return pack_ref(task)

    def setup(self, task: Task, box: Sandbox) -> None:
        """Copy the task's starting files, if any, into the workspace."""
        if task.start_dir is not None:
            box.copy_in(task.start_dir)

    def intro(self, task: Task, level: str, budget: int) -> str:
        """The PRD of ``level``, the tools and the budget, then the delivery contract (:func:`delivery_contract`)."""
        delivery = delivery_contract(task, level)
        return INTRO.format(prd=task.prd(level), language=task.language, budget=budget, delivery=delivery)

    def evaluate(self, task: Task, level: str, snapshot: Path, transcript: Transcript, context: EvalContext) -> Score:
        """Score every tier of the delivery in fresh sandboxes; add the interaction metrics."""
        report = score(task, snapshot, sandbox=context.sandbox, limits=self.score_limits)
        stats = transcript.stats(task.user_agent_data(level))
        components = reward_components(report, stats)
        tiers = {
            name: TierSummary(passed=t.passed, total=t.total, rate=t.rate, failure_reason=t.failure_reason)
            for name, t in report.tiers.items()
        }
        return BuildScore(
            reward=context.reward.total(components),
            components=components,
            interaction=stats,
            duration_s=report.duration_s,
            overall=report.overall,
            hidden_passed=report.hidden_passed,
            hidden_total=report.hidden_total,
            tiers=tiers,
            structure=report.structure,
        )

    def progress(self, task: Task, level: str, snapshot: Path, context: EvalContext) -> float | None:
        """The Public pass rate of the delivery (the cases the agent can see), scored in a fresh sandbox."""
        report = score(task, snapshot, ["public"], sandbox=context.sandbox, limits=self.score_limits, structure=False)
        return report.rate("public") or 0.0

    def cheat(self, task: Task, level: str) -> Solution:
        """Each record's first trigger, then the golden solution's files."""
        return Solution(
            questions=oracle_questions(task.user_agent_data(level)),
            actions=golden_actions(task),
        )

    def hidden_paths(self, task: Task) -> tuple[Path, ...]:
        """The task pack and the golden solution."""
        return hidden_paths(task, task.golden_dir)

    def close(self) -> None:
        """Nothing to release."""
