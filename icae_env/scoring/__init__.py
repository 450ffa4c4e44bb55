"""The exact ICAE black-box scorer and structural metrics.

Example:
    >>> from icae_env.scoring import score
    >>> from icae_env.tasks import load_task, list_tasks
    >>> task = load_task(list_tasks()[0])
    >>> score(task, task.golden_dir, tiers=["public"]).rate("public")
    1.0
"""

from __future__ import annotations

from icae_env.scoring.compare import collect_outputs, compare_case_file, decode_output
from icae_env.scoring.report import CaseResult, FailureSample, ScoreReport, StructureReport, TierResult
from icae_env.scoring.scorer import ScoreLimits, score
from icae_env.scoring.structure import measure_structure

__all__ = [
    "CaseResult",
    "FailureSample",
    "ScoreLimits",
    "ScoreReport",
    "StructureReport",
    "TierResult",
    "collect_outputs",
    "compare_case_file",
    "decode_output",
    "measure_structure",
    "score",
]
