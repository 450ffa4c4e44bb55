"""Hand-labelled clarification questions and the precision metrics of a router on them.

A labelled question (one JSON object per line of ``benchmarks/data/router_eval_*.jsonl``) is asked of one task
level: ``{"source", "task", "level", "kind", "question", "records", "of"}``. ``kind`` is ``paraphrase`` (a
hand-written rewording of record ``of``'s triggers), ``cross_task`` (a question of another task), ``generic`` (a
generic engineering question) or ``off_topic``; ``records`` lists the ids that answer it, labelled by reading the
records (``[]``: the fallback is right); an optional ``note`` explains a label. A question is *unanswerable* when
``records`` holds no task-specific id
(:attr:`~icae_env.tasks.models.HiddenConstraint.is_task_specific`).

:func:`evaluate_labels` asks every question of a router over its level's documents and measures:

* the false task-specific reveal rate: the share of unanswerable questions whose reply (the router's first
  three documents) holds a task-specific record;
* recall on answerable paraphrases (``of`` among ``records``): the share whose reply holds ``of``;
* the off-topic fallback rate: the share of ``off_topic`` questions that get no document;
* unasked reveals: the task-specific records per answerable question (one whose ``records`` holds a task-specific
  id) that its reply holds and its label does not list, the records a reply gives away beyond the question;
* median and 90th-percentile routing latency.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from icae_env.errors import ArgumentError
from icae_env.icae_bench.load import load_icae_bench
from icae_env.tasks import load_task
from icae_env.tasks.models import Task, UserAgentData
from icae_env.user_agent.base import Router
from icae_env.user_agent.grounded import MAX_POINTS, documents_for

__all__ = [
    "KINDS",
    "LabelData",
    "LabelledQuality",
    "LabelledQuestion",
    "evaluate_labels",
    "label_problems",
    "load_labels",
    "quantile",
]

KINDS = ("paraphrase", "cross_task", "generic", "off_topic")
Kind = Literal["paraphrase", "cross_task", "generic", "off_topic"]


class LabelledQuestion(BaseModel):
    """One hand-labelled question (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    task: str
    level: str
    kind: Kind
    question: str
    records: tuple[str, ...]
    of: str | None = None
    note: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """``(source, task, level)``: the task level the question is asked of."""
        return self.source, self.task, self.level

    @property
    def is_paraphrase(self) -> bool:
        """Whether this is an answerable paraphrase: kind ``paraphrase`` and ``of`` among ``records``."""
        return self.kind == "paraphrase" and self.of is not None and self.of in self.records


def load_labels(path: str | Path) -> list[LabelledQuestion]:
    """Read a labelled-question file (JSON lines; blank lines skipped).

    Raises:
        ArgumentError: naming the line of a malformed question.
    """
    labels = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            labels.append(LabelledQuestion.model_validate(json.loads(line)))
        except (ValueError, ValidationError) as exc:
            raise ArgumentError(f"{path}:{number}: not a labelled question: {exc}") from None
    return labels


class LabelData:
    """The User Agent Data of labelled questions' levels, loaded once per task.

    ``source`` ``builtin`` names a built-in task (``dep-resolver`` or ``builtin/dep-resolver``); any source starting
    with ``icae`` names a task of the ICAE-Bench data root ``icae_root`` by alias (``realcode@001``).

    Args:
        icae_root: The ICAE-Bench data root of the ``icae`` questions (None: such questions raise).
    """

    def __init__(self, icae_root: str | Path | None = None) -> None:
        self.icae_root = None if icae_root is None else Path(icae_root)
        self._tasks: dict[tuple[str, str], Task] = {}

    @staticmethod
    def task_name(label: LabelledQuestion) -> str:
        """Return the task's name: ``builtin/<name>`` for built-in tasks, the alias for ICAE ones."""
        if label.source == "builtin" and not label.task.startswith("builtin/"):
            return f"builtin/{label.task}"
        return label.task

    def task(self, label: LabelledQuestion) -> Task:
        """Return the task ``label`` is asked of.

        Raises:
            ArgumentError: for an unknown source, or an ``icae`` question without ``icae_root``.
        """
        key = (label.source, self.task_name(label))
        if key not in self._tasks:
            if label.source == "builtin":
                self._tasks[key] = load_task(key[1])
            elif label.source.startswith("icae"):
                if self.icae_root is None:
                    raise ArgumentError(f"question of ICAE task {label.task!r} but no ICAE data root was given")
                self._tasks[key] = load_icae_bench(self.icae_root, key[1])
            else:
                raise ArgumentError(f"source must be 'builtin' or start with 'icae', got {label.source!r}")
        return self._tasks[key]

    def __call__(self, label: LabelledQuestion) -> UserAgentData:
        """Return the User Agent Data of the level ``label`` is asked of."""
        return self.task(label).user_agent_data(label.level)


def label_problems(
    labels: Iterable[LabelledQuestion], data_for: Callable[[LabelledQuestion], UserAgentData]
) -> list[str]:
    """Return one line per label that names an id its level does not have."""
    problems = []
    for label in labels:
        ids = {d.doc_id for d in documents_for(data_for(label))}
        unknown = [r for r in (*label.records, *([label.of] if label.of else [])) if r not in ids]
        if unknown:
            problems.append(f"{'/'.join(label.key)}: {label.question!r}: unknown ids {unknown}")
    return problems


def quantile(values: Sequence[float], q: float) -> float:
    """Return the ``q`` quantile of ``values`` (linear interpolation; 0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class LabelledQuality:
    """A router's precision metrics on labelled questions (rates in ``[0, 1]``; see the module docstring).

    Attributes:
        questions: Questions asked.
        unanswerable: Unanswerable questions.
        false_reveal: Share of unanswerable questions whose reply holds a task-specific record.
        paraphrases: Answerable paraphrases.
        recall: Share of answerable paraphrases whose reply holds the paraphrased record.
        off_topic: Off-topic questions.
        off_topic_fallback: Share of off-topic questions that get the fallback.
        false_reveal_by_kind: ``kind -> (unanswerable questions, false reveal rate)``.
        ids_per_answer: Mean documents per answered reply.
        answerable: Answerable questions (``records`` holds a task-specific id).
        unasked_reveals: Task-specific records per answerable question that its reply holds and its label does
            not list.
        median_ms: Median routing time per question.
        p90_ms: 90th-percentile routing time.
        errors: ``(task level, kind, question, labelled records, reply ids)`` of each wrong reply: a false reveal,
            a missed paraphrase, or an answered off-topic question.
    """

    questions: int
    unanswerable: int
    false_reveal: float
    paraphrases: int
    recall: float
    off_topic: int
    off_topic_fallback: float
    false_reveal_by_kind: dict[str, tuple[int, float]]
    ids_per_answer: float
    answerable: int
    unasked_reveals: float
    median_ms: float
    p90_ms: float
    errors: tuple[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], ...] = ()


def _rate(hits: int, total: int) -> float:
    return hits / total if total else 0.0


@dataclass
class _Tally:
    """Counts of :func:`evaluate_labels`."""

    asked: int = 0
    unanswerable: int = 0
    revealed: int = 0
    paraphrases: int = 0
    recalled: int = 0
    off_topic: int = 0
    off_fallback: int = 0
    answered: int = 0
    ids: int = 0
    answerable: int = 0
    unasked: int = 0

    def __post_init__(self) -> None:
        self.by_kind: dict[str, list[int]] = {k: [0, 0] for k in KINDS}
        self.latencies: list[float] = []
        self.errors: list[tuple[str, str, str, tuple[str, ...], tuple[str, ...]]] = []

    def add(self, label: LabelledQuestion, reply: tuple[str, ...], specific: set[str]) -> None:
        self.asked += 1
        self.answered += bool(reply)
        self.ids += len(reply)
        wrong = False
        if not specific.intersection(label.records):
            revealed = bool(specific.intersection(reply))
            self.unanswerable += 1
            self.revealed += revealed
            self.by_kind[label.kind][0] += 1
            self.by_kind[label.kind][1] += revealed
            wrong = revealed
        else:
            self.answerable += 1
            self.unasked += len(specific.intersection(reply).difference(label.records))
        if label.is_paraphrase:
            self.paraphrases += 1
            self.recalled += label.of in reply
            wrong = wrong or label.of not in reply
        if label.kind == "off_topic":
            self.off_topic += 1
            self.off_fallback += not reply
            wrong = wrong or bool(reply)
        if wrong:
            self.errors.append(("/".join(label.key), label.kind, label.question, label.records, reply))

    def quality(self) -> LabelledQuality:
        return LabelledQuality(
            questions=self.asked,
            unanswerable=self.unanswerable,
            false_reveal=_rate(self.revealed, self.unanswerable),
            paraphrases=self.paraphrases,
            recall=_rate(self.recalled, self.paraphrases),
            off_topic=self.off_topic,
            off_topic_fallback=_rate(self.off_fallback, self.off_topic),
            false_reveal_by_kind={k: (n, _rate(r, n)) for k, (n, r) in self.by_kind.items() if n},
            ids_per_answer=_rate(self.ids, self.answered),
            answerable=self.answerable,
            unasked_reveals=_rate(self.unasked, self.answerable),
            median_ms=1000 * statistics.median(self.latencies) if self.latencies else 0.0,
            p90_ms=1000 * quantile(self.latencies, 0.9),
            errors=tuple(self.errors),
        )


def evaluate_labels(
    labels: Iterable[LabelledQuestion],
    data_for: Callable[[LabelledQuestion], UserAgentData],
    router_for: Callable[[LabelledQuestion, UserAgentData], Router],
) -> LabelledQuality:
    """Ask every labelled question of its level's router and measure the replies (see the module docstring).

    Args:
        labels: The questions.
        data_for: The User Agent Data of a question's level.
        router_for: The router of a question's level, given the question and that data (it may cache by
            ``label.key``; leave-one-task-out evaluations pick the fold's router here).

    Returns:
        The :class:`LabelledQuality`.
    """
    tally = _Tally()
    for label in labels:
        data = data_for(label)
        docs = documents_for(data)
        specific = {c.constraint_id for c in data.hidden_constraints if c.is_task_specific}
        router = router_for(label, data)
        started = time.perf_counter()
        matches = router.route(label.question)
        tally.latencies.append(time.perf_counter() - started)
        tally.add(label, tuple(docs[m.index].doc_id for m in matches[:MAX_POINTS]), specific)
    return tally.quality()
