"""Per-task interaction logs of the Oracle server and the reference's stats computed from them.

One :class:`TaskLog` per (``append_id``, task): the task's record ids at the session's level, every counted turn
(the reference's log entry: question, answer and the ``internal_log`` fields) and the number of refused questions
(logged, not counted). Stats are computed from the log alone, as the reference computes them from its log files
(``docs/icae-format.md`` sections 4 and 5):

- per task: ``budget_usage_rate = 100 * turns / max_interactions``, ``fallback_rate = 100 * fallbacks / turns``,
  ``constraint_coverage = 100 * |distinct ids hit| / |records of the level|`` (null when the level has none), each
  rounded to one decimal; ``triggers_hit`` sorted, ``missed_constraints`` in record order;
- ``interaction_score``: the sum of the turns' ``score_adjustment``. In the reference an LLM sets it (+1, its rule
  6 "defensive questioning reward", when a question also proposes a reasonable default). Here it is
  deterministic: +1 when the question hit at least one record and proposes a default (:func:`proposes_default`),
  else 0. Refused questions never score;
- aggregate: ``repos`` (tasks with a log), sums of ``turns_used``, ``fallbacks`` and ``interaction_score``, means
  of the per-task (rounded) rates, rounded again; ``constraint_coverage`` averages the tasks that have one.

Example:
    >>> log = TaskLog("builtin/x", "L1", ("C001", "C002"))
    >>> log.turns.append(turn_entry(1, 15, "Should errors be logged?", "Yes.", ["C002"], fallback=False))
    >>> stats = task_stats(log, model="m", max_interactions=16)
    >>> stats["budget_usage_rate"], stats["constraint_coverage"], stats["interaction_score"]
    (6.2, 50.0, 1)
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "INTERNAL_LOG_FIELDS",
    "TaskLog",
    "aggregate_stats",
    "internal_log",
    "proposes_default",
    "task_stats",
    "turn_entry",
]

#: The ``internal_log`` fields of an interaction reply, in the reference's order.
INTERNAL_LOG_FIELDS = (
    "triggers_hit",
    "api_alignment_triggered",
    "fallback_triggered",
    "cheating_attempt_detected",
    "score_adjustment",
)
_DEFAULT_PROPOSAL = re.compile(
    r"^\s*(should|shall)\b"
    r"|\b(i|we)(\s+will|\s+would|'ll|'d)?\s+(assume|propose|suggest|plan\s+to|intend\s+to|default\s+to)\b"
    r"|\b(can|may|could)\s+(i|we)\s+assume\b"
    r"|\bassuming\b|\bor\s+should\b|\bdefaults?\s+to\b|\bfalls?\s+back\s+to\b"
    r"|\bis\s+it\s+(ok|okay|fine|acceptable)\s+(if|to)\b",
    re.IGNORECASE,
)


@dataclass
class TaskLog:
    """The log of one task in one session.

    Attributes:
        task_id: The canonical task id (an ICAE alias such as ``realcode@001``, or ``builtin/<name>``).
        level: The icae-env level the session's difficulty selects.
        constraints: The ids of the level's hidden records, in record order (the coverage denominator).
        turns: The counted turns, oldest first (see :func:`turn_entry`).
        refused: Questions refused past the budget (logged, not counted).
    """

    task_id: str
    level: str
    constraints: tuple[str, ...]
    turns: list[dict[str, Any]] = field(default_factory=list)
    refused: int = 0

    @property
    def has_log(self) -> bool:
        """Whether anything was asked (a counted or a refused question): a task without is "no log"."""
        return bool(self.turns) or self.refused > 0

    def header(self) -> dict[str, Any]:
        """Return what identifies the log (everything but the events)."""
        return {"task_id": self.task_id, "level": self.level, "constraints": list(self.constraints)}


def proposes_default(question: str) -> bool:
    """Whether a question proposes a default for the Oracle to confirm ("Should empty lines be excluded?").

    Matches a question opening with *should*/*shall*, and phrases such as "I assume", "we plan to", "can I
    assume", "assuming", "or should", "default to", "fall back to", "is it ok if". Case-insensitive.
    """
    return _DEFAULT_PROPOSAL.search(question) is not None


def turn_entry(
    turn: int,
    remaining: int,
    question: str,
    answer: str,
    triggers_hit: Sequence[str],
    *,
    fallback: bool,
    api_alignment: bool = False,
) -> dict[str, Any]:
    """Return the log entry of one counted turn (the reference's fields plus a wall-clock ``ts``).

    Args:
        turn: The turn number (1-based, per task).
        remaining: Questions left after this one.
        question: The question as asked.
        answer: The reply text.
        triggers_hit: The hidden-record ids the reply drew on.
        fallback: Whether the fallback reply was given.
        api_alignment: Whether the reply gave the golden API signature.

    Returns:
        A JSON object; ``score_adjustment`` is 1 when the turn hit a record and the question proposes a default.
    """
    hit = list(dict.fromkeys(triggers_hit))
    return {
        "turn": turn,
        "remaining": remaining,
        "question": question,
        "answer": answer,
        "triggers_hit": hit,
        "api_alignment_triggered": api_alignment,
        "fallback_triggered": fallback,
        "cheating_attempt_detected": False,
        "score_adjustment": int(bool(hit) and proposes_default(question)),
        "ts": round(time.time(), 3),
    }


def internal_log(entry: Mapping[str, Any]) -> dict[str, Any]:
    """Return the ``internal_log`` of an interaction reply from its log entry."""
    return {name: entry[name] for name in INTERNAL_LOG_FIELDS}


def _percent(part: float, whole: float) -> float:
    """``100 * part / whole`` rounded to one decimal (0.0 when ``whole`` is 0; never -0.0)."""
    return round(100.0 * part / whole, 1) + 0.0 if whole else 0.0


def task_stats(log: TaskLog, *, model: str, max_interactions: int) -> dict[str, Any]:
    """Return the reference's per-task stats block of ``log``.

    Args:
        log: The task's log.
        model: The session's model name.
        max_interactions: The session's budget.

    Returns:
        ``{"task_id", "model", "turns_used", "max_interactions", "budget_usage_rate", "fallbacks",
        "fallback_rate", "triggers_hit", "total_constraints", "constraint_coverage", "missed_constraints",
        "interaction_score"}``.
    """
    turns = len(log.turns)
    known = set(log.constraints)
    hit = {cid for entry in log.turns for cid in entry["triggers_hit"] if cid in known}
    fallbacks = sum(bool(entry["fallback_triggered"]) for entry in log.turns)
    total = len(log.constraints)
    return {
        "task_id": log.task_id,
        "model": model,
        "turns_used": turns,
        "max_interactions": max_interactions,
        "budget_usage_rate": _percent(turns, max_interactions),
        "fallbacks": fallbacks,
        "fallback_rate": _percent(fallbacks, turns),
        "triggers_hit": sorted(hit),
        "total_constraints": total,
        "constraint_coverage": _percent(len(hit), total) if total else None,
        "missed_constraints": [cid for cid in log.constraints if cid not in hit],
        "interaction_score": sum(int(entry["score_adjustment"]) for entry in log.turns),
    }


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(sum(present) / len(present), 1) + 0.0 if present else None


def aggregate_stats(
    append_id: str, per_task: Mapping[str, dict[str, Any]], *, model: str, max_interactions: int
) -> dict[str, Any]:
    """Return the reference's aggregate stats over a session's tasks.

    Args:
        append_id: The session.
        per_task: Task id -> its :func:`task_stats` block (at least one).
        model: The session's model name.
        max_interactions: The session's budget.

    Returns:
        ``{"append_id", "model", "repos", "turns_used", "max_interactions", "budget_usage_rate", "fallbacks",
        "fallback_rate", "constraint_coverage", "interaction_score", "per_repo"}``.
    """
    blocks = list(per_task.values())
    return {
        "append_id": append_id,
        "model": model,
        "repos": len(blocks),
        "turns_used": sum(b["turns_used"] for b in blocks),
        "max_interactions": max_interactions,
        "budget_usage_rate": _mean([b["budget_usage_rate"] for b in blocks]) or 0.0,
        "fallbacks": sum(b["fallbacks"] for b in blocks),
        "fallback_rate": _mean([b["fallback_rate"] for b in blocks]) or 0.0,
        "constraint_coverage": _mean([b["constraint_coverage"] for b in blocks]),
        "interaction_score": sum(b["interaction_score"] for b in blocks),
        "per_repo": dict(per_task),
    }
