"""Fitting the answerability gate (:mod:`icae_env.user_agent.features.gate`) on labelled questions.

Every question asked of a router gives one row per gate candidate: the candidate's features and whether it is among
the question's answering records. Two sources of questions are used, both from the training tasks only:

* the labelled questions (:mod:`benchmarks.router_fit.labels`), asked of the level's full documents;
* the leave-one-trigger-out questions (:func:`benchmarks.router_fit.fits.leave_one_out`): each removed trigger,
  asked of the documents without it, is answered by its own record (and, for the gate, by no other candidate).

The logistic weights are fitted by Newton's method with an L2 penalty (numpy, deterministic). The threshold is then
*calibrated* without looking at the fitted rows' own predictions: the rows of each training task are predicted by a
model fitted on the other training tasks (leave-one-task-out inside the training set), and the threshold is the one
that maximises the mean of paraphrase recall and leave-one-trigger-out top-1 and hit@3 on those predictions while
the false task-specific reveal rate stays at most ``max_false_reveal`` and off-topic fallback at least
``min_off_topic``. The same search picks ``join`` and ``generic_threshold`` (:mod:`icae_env.user_agent.features.gate`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from icae_env.errors import ArgumentError
from icae_env.user_agent.base import Document
from icae_env.user_agent.features.gate import Gate, GateWeights, decide
from icae_env.user_agent.features.text import tokens
from icae_env.user_agent.grounded import MAX_POINTS

__all__ = [
    "Calibration",
    "GateSample",
    "GatedRouter",
    "calibrate_threshold",
    "fit_logistic",
    "fit_gate_samples",
    "gate_sample",
    "reply_figures",
]

#: ``(threshold, join, generic_threshold)`` reply rules tried by :func:`calibrate_threshold`.
RULES = tuple(
    (round(0.05 * t, 2), join, round(0.05 * g, 2))
    for t in range(2, 17)
    for join in (0.05, 0.1, 0.15, 0.2, 0.3)
    for g in range(1, 11)
    if join <= 0.05 * t
)


class GatedRouter(Protocol):
    """What :func:`gate_sample` needs of a router: a gate, an off-topic check and scores."""

    gate: Gate | None

    def known_share(self, words: list[str]) -> float:
        """The share of a question's tokens that the task knows."""

    def scores(self, question: str) -> np.ndarray:
        """The ranker's score of every document."""


@dataclass(frozen=True)
class GateSample:
    """One question as the gate sees it.

    Attributes:
        task: The task it was asked of (the unit of leave-one-task-out).
        kind: The label kind, or ``trigger`` for a leave-one-trigger-out question.
        x: The candidates' features, shape ``(candidates, len(weights.feature_names()))`` (no rows when the router's
            off-topic check rejected the question).
        positive: Per candidate, whether it answers the question.
        specific: Per candidate, whether it is a task-specific record.
        generic: Per candidate, whether it is a generic record (the gate's ``generic`` feature).
        target: The candidate index of the paraphrased record or removed trigger's record (-1: not a candidate),
            or None when there is none.
        unanswerable: Whether the question has no task-specific answer.
        candidates: The candidates' document indices, best ranker score first.
    """

    task: str
    kind: str
    x: np.ndarray
    positive: np.ndarray
    specific: np.ndarray
    generic: np.ndarray
    target: int | None
    unanswerable: bool
    candidates: tuple[int, ...] = ()


def gate_sample(
    router: GatedRouter, docs: Sequence[Document], question: str, task: str, kind: str, answers: Iterable[str],
    target: str | None,
) -> GateSample:  # fmt: skip
    """Return the :class:`GateSample` of ``question`` asked of a gated lexical router over ``docs``.

    Args:
        router: A :class:`~icae_env.user_agent.routers.lexical.LexicalRouter` with a gate.
        docs: Its documents.
        question: The question.
        task: The task's name.
        kind: The question's kind.
        answers: The ids that answer it.
        target: The id whose recall is measured (paraphrased or removed-trigger record), if any.
    """
    gate = router.gate
    if gate is None:
        raise ArgumentError("gate_sample needs a router with a gate")
    answers = set(answers)
    unanswerable = not any(d.doc_id in answers and d.is_task_specific for d in docs)
    words = gate.question_words(question)
    candidates: list[int] = []
    x = np.zeros((0, len(gate.weights.coefficients())))
    if words:
        scores = router.scores(question)
        candidates = gate.candidates(scores)
        x = gate.features(words, scores, candidates, router.known_share(tokens(question)), question)
    ids = [docs[i].doc_id for i in candidates]
    index = ids.index(target) if target in ids else -1
    return GateSample(
        task=task,
        kind=kind,
        x=x,
        positive=np.array([i in answers for i in ids], dtype=bool),
        specific=np.array([docs[i].is_task_specific for i in candidates], dtype=bool),
        generic=np.array([not docs[i].is_task_specific and docs[i].kind != "pointer" for i in candidates], dtype=bool),
        target=None if target is None else index,
        unanswerable=unanswerable,
        candidates=tuple(candidates),
    )


def fit_logistic(x: np.ndarray, y: np.ndarray, weight: np.ndarray, l2: float = 1.0, steps: int = 50) -> np.ndarray:
    """Return ``[coefficients..., bias]`` of an L2-penalised weighted logistic regression (Newton's method).

    The bias is not penalised. Deterministic: plain numpy linear algebra, fixed steps, stopping early once the
    update is below 1e-10.
    """
    design = np.hstack([x, np.ones((len(x), 1))])
    penalty = np.full(design.shape[1], l2)
    penalty[-1] = 0.0
    beta = np.zeros(design.shape[1])
    for _ in range(steps):
        p = 0.5 * (1.0 + np.tanh(0.5 * (design @ beta)))
        gradient = design.T @ (weight * (p - y)) + penalty * beta
        hessian = (design * (weight * p * (1 - p))[:, None]).T @ design + np.diag(penalty) + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return beta


def _rows(samples: Sequence[GateSample], trigger_weight: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    blocks = [s.x for s in samples if len(s.x)]
    width = samples[0].x.shape[1] if samples else 0
    x = np.concatenate(blocks) if blocks else np.zeros((0, width))
    y = np.concatenate([s.positive for s in samples if len(s.x)] or [np.zeros(0)]).astype(np.float64)
    weight = np.concatenate(
        [np.full(len(s.x), trigger_weight if s.kind == "trigger" else 1.0) for s in samples if len(s.x)]
        or [np.zeros(0)]
    )
    return x, y, weight


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@dataclass(frozen=True)
class Calibration:
    """Question-level figures of one reply rule on out-of-fold probabilities."""

    threshold: float
    join: float
    generic_threshold: float
    false_reveal: float
    recall: float
    trigger_top1: float
    trigger_hit3: float
    off_topic_fallback: float

    @property
    def utility(self) -> float:
        """The mean of paraphrase recall, leave-one-trigger-out top-1 and leave-one-trigger-out hit@3."""
        return (self.recall + self.trigger_top1 + self.trigger_hit3) / 3


def reply_figures(
    samples: Sequence[GateSample], probabilities: Sequence[np.ndarray], rule: tuple[float, float, float]
) -> Calibration:
    """Return the figures of the reply rule ``(threshold, join, generic_threshold)`` on the samples' probabilities."""
    weights = GateWeights(threshold=rule[0], join=rule[1], generic_threshold=rule[2])
    counts = dict.fromkeys(("unans", "reveal", "para", "recall", "trig", "top1", "hit3", "off", "fallback"), 0)
    for sample, p in zip(samples, probabilities, strict=True):
        reply = decide(range(len(p)), p, sample.generic.tolist(), weights)[:MAX_POINTS]
        if sample.kind == "trigger":
            counts["trig"] += 1
            counts["top1"] += bool(reply) and reply[0] == sample.target
            counts["hit3"] += sample.target in reply
            continue
        if sample.unanswerable:
            counts["unans"] += 1
            counts["reveal"] += any(sample.specific[j] for j in reply)
        if sample.kind == "paraphrase" and sample.target is not None:
            counts["para"] += 1
            counts["recall"] += sample.target in reply
        if sample.kind == "off_topic":
            counts["off"] += 1
            counts["fallback"] += not reply

    def rate(a: str, b: str, empty: float = 0.0) -> float:
        return counts[a] / counts[b] if counts[b] else empty

    return Calibration(*rule, rate("reveal", "unans"), rate("recall", "para"), rate("top1", "trig"),
                       rate("hit3", "trig"), rate("fallback", "off", 1.0))  # fmt: skip


def _out_of_fold(samples: Sequence[GateSample], trigger_weight: float, l2: float) -> list[np.ndarray]:
    """Predict each task's samples with a model fitted on the other tasks' samples."""
    tasks = sorted({s.task for s in samples})
    if len(tasks) < 2:
        raise ArgumentError(f"calibrating the gate needs questions of at least two tasks, got {tasks}")
    predicted: list[np.ndarray] = [np.zeros(0)] * len(samples)
    for task in tasks:
        beta = fit_logistic(*_rows([s for s in samples if s.task != task], trigger_weight), l2=l2)
        for i, sample in enumerate(samples):
            if sample.task == task:
                predicted[i] = _sigmoid(sample.x @ beta[:-1] + beta[-1]) if len(sample.x) else np.zeros(0)
    return predicted


def calibrate_threshold(
    samples: Sequence[GateSample],
    trigger_weight: float = 1.0,
    l2: float = 1.0,
    max_false_reveal: float = 0.04,
    min_off_topic: float = 0.98,
) -> Calibration:
    """Return the best reply rule of :data:`RULES` on leave-one-task-out predictions (module docstring).

    When no rule meets both bounds, the one with the lowest false reveal rate (then the highest utility) wins.
    """
    predicted = _out_of_fold(samples, trigger_weight, l2)
    figures = [reply_figures(samples, predicted, rule) for rule in RULES]
    feasible = [f for f in figures if f.false_reveal <= max_false_reveal and f.off_topic_fallback >= min_off_topic]
    if feasible:
        return max(feasible, key=lambda f: (f.utility, f.threshold, f.join, f.generic_threshold))
    return min(figures, key=lambda f: (f.false_reveal, -f.utility, f.threshold))


def fit_gate_samples(
    samples: Sequence[GateSample],
    base: GateWeights,
    trigger_weight: float = 1.0,
    l2: float = 1.0,
    calibrate: Callable[..., Calibration] = calibrate_threshold,
    **bounds: float,
) -> GateWeights:
    """Fit the gate's weights on all ``samples`` and calibrate its threshold (module docstring).

    Args:
        samples: The training questions.
        base: Where the fields that are not fitted (candidates, floor, score cap) come from.
        trigger_weight: The weight of a leave-one-trigger-out row against a labelled question's row.
        l2: The L2 penalty.
        calibrate: The threshold calibration (:func:`calibrate_threshold`).
        **bounds: ``max_false_reveal`` and ``min_off_topic`` for the calibration.
    """
    beta = fit_logistic(*_rows(samples, trigger_weight), l2=l2)
    rule = calibrate(samples, trigger_weight=trigger_weight, l2=l2, **bounds)
    fitted = base.replace_coefficients(beta[:-1].tolist(), float(beta[-1]))
    return replace(fitted, threshold=rule.threshold, join=rule.join, generic_threshold=rule.generic_threshold)
