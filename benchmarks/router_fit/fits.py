"""Router evaluation and the fits of the routers' shipped constants, all from the built-in tasks only.

Evaluation: leave-one-trigger-out top-1 and hit@3 with off-topic rejection
(:mod:`benchmarks.router_fit.trigger_quality`), and the precision metrics on hand-labelled questions
(:mod:`benchmarks.router_fit.labels`).

Fits (numpy, deterministic):

* :func:`fit_router_weights` fits a linear ranker's coefficients (view weights and kind biases) on the
  leave-one-trigger-out questions with a softmax ranking loss; that is how the defaults of the lexical router
  (:func:`fit_lexical_weights`) and of the embedding router were obtained.
* :func:`builtin_background` counts the built-in tasks' stems
  (:data:`~icae_env.user_agent.features.background.DEFAULT_BACKGROUND`).
* :func:`fit_gate` fits the answerability gate (:mod:`benchmarks.router_fit.gate_fit`) on labelled questions and
  leave-one-trigger-out questions.
* :func:`fit_router` does all three on a set of built-in tasks (leave-one-task-out folds use it with eleven);
  :func:`fit_default_router` on all of them reproduces the shipped defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import Any, Protocol, TypeVar

import numpy as np

from benchmarks.router_fit.gate_fit import GateSample, fit_gate_samples, gate_sample
from benchmarks.router_fit.labels import LabelData, LabelledQuestion, evaluate_labels, load_labels
from benchmarks.router_fit.trigger_quality import OFF_TOPIC_QUESTIONS, RouterQuality, evaluate_router, leave_one_out
from icae_env.tasks import list_tasks, load_task
from icae_env.tasks.models import Task, UserAgentData
from icae_env.user_agent.base import Document
from icae_env.user_agent.features.background import Background, build_background
from icae_env.user_agent.features.gate import DEFAULT_GATE, GateWeights
from icae_env.user_agent.features.text import tokens
from icae_env.user_agent.grounded import documents_for
from icae_env.user_agent.routers.lexical import DEFAULT_WEIGHTS, LexicalRouter, LexicalWeights

__all__ = [
    "LEVELS",
    "OFF_TOPIC_QUESTIONS",
    "RouterFit",
    "RouterQuality",
    "builtin_background",
    "builtin_levels",
    "evaluate_labels",
    "evaluate_router",
    "fit_default_router",
    "fit_gate",
    "fit_lexical_weights",
    "fit_router",
    "fit_router_weights",
    "leave_one_out",
    "load_labels",
]

LEVELS = ("L1", "L2", "L3")
Levels = Sequence[tuple[str, UserAgentData]]

W = TypeVar("W")


class _Designer(Protocol):
    def design(self, question: str) -> np.ndarray: ...


def _ranking_set(
    levels: Iterable[tuple[str, UserAgentData]], build: Callable[[tuple[Document, ...]], _Designer]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the stacked design rows, each row's question number, and each question's target row."""
    blocks: list[np.ndarray] = []
    targets: list[int] = []
    offset = 0
    for _, data in levels:
        for reduced, asked in leave_one_out(documents_for(data)):
            router = build(reduced)
            for phrase, i in asked:
                blocks.append(router.design(phrase))
                targets.append(offset + i)
                offset += len(reduced)
    question = np.repeat(np.arange(len(blocks)), [len(b) for b in blocks])
    return np.concatenate(blocks), question, np.asarray(targets)


def _softmax_gradient(x: np.ndarray, question: np.ndarray, targets: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Return the gradient of the mean softmax cross-entropy (one softmax per question over its documents)."""
    n = len(targets)
    logits = x @ w
    peak = np.full(n, -np.inf)
    np.maximum.at(peak, question, logits)
    exp = np.exp(logits - peak[question])
    total = np.zeros(n)
    np.add.at(total, question, exp)
    residual = exp / total[question]
    residual[targets] -= 1.0
    return x.T @ residual / n


def fit_router_weights(
    levels: Iterable[tuple[str, UserAgentData]],
    build: Callable[[tuple[Document, ...]], _Designer],
    names: Sequence[str],
    base: W,
    l2: float = 1e-3,
    steps: int = 3000,
    learning_rate: float = 0.05,
) -> W:
    """Fit a linear ranker's coefficients on leave-one-trigger-out questions.

    Minimises the mean softmax cross-entropy of the asked record among each level's documents, plus an L2 penalty,
    with Adam from zero (deterministic). The router's ``design(question)`` gives one row of inputs per document.

    Args:
        levels: ``(label, data)`` pairs, one per task level.
        build: Builds a router with a ``design`` method from documents.
        names: The fields of ``base`` that the design columns multiply, in order.
        base: A frozen dataclass of weights; the fields not in ``names`` are kept.
        l2: L2 penalty on the coefficients.
        steps: Optimisation steps.
        learning_rate: Adam's step size.

    Returns:
        ``base`` with the fitted coefficients, rounded to two decimals.
    """
    x, question, targets = _ranking_set(levels, build)
    w, m, v = np.zeros(x.shape[1]), np.zeros(x.shape[1]), np.zeros(x.shape[1])
    for t in range(1, steps + 1):
        grad = _softmax_gradient(x, question, targets, w) + l2 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= learning_rate * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    fitted = {name: round(float(value), 2) for name, value in zip(names, w, strict=True)}
    return replace(base, **fitted)  # type: ignore[type-var]


def fit_lexical_weights(
    levels: Iterable[tuple[str, UserAgentData]],
    base: LexicalWeights | None = None,
    router_class: type[LexicalRouter] = LexicalRouter,
    **options: Any,
) -> LexicalWeights:
    """Fit a lexical router's view weights and kind biases (:func:`fit_router_weights` with its design).

    Args:
        levels: ``(label, data)`` pairs, one per task level.
        base: Where the fields that are not fitted (thresholds, margin, BM25 constants) come from
            (``router_class.default_weights`` when omitted).
        router_class: The router whose ranker is fitted (:meth:`~LexicalRouter.ranker` gives its design).
        **options: ``l2``, ``steps``, ``learning_rate``.

    Returns:
        ``base`` with the fitted view weights and biases.
    """
    start = base or router_class.default_weights
    build = partial(router_class.ranker, weights=start)
    return fit_router_weights(levels, build, start.names(), start, **options)


def builtin_levels(tasks: Iterable[str] | None = None) -> list[tuple[str, UserAgentData]]:
    """Return ``(task/level, data)`` of every level of the built-in ``tasks`` (all of them by default)."""
    names = list_tasks() if tasks is None else list(tasks)
    return [(f"{n}/{lv}", load_task(n).user_agent_data(lv)) for n in names for lv in LEVELS]


@lru_cache(maxsize=64)
def _builtin_stems(name: str) -> frozenset[str]:
    return frozenset(task_stems(load_task(name)))


def task_stems(task: Task) -> set[str]:
    """Return the tokens (stems and concepts) of a task's PRDs and documents, over all levels (a background unit)."""
    stems: set[str] = set()
    for level in task.levels:
        texts = [task.prd(level)] + [" ".join(d.triggers) + "\n" + d.response for d in documents_for(
            task.user_agent_data(level))]  # fmt: skip
        for text in texts:
            stems.update(tokens(text))
    return stems


@lru_cache(maxsize=64)
def _builtin_responses(name: str) -> tuple[str, ...]:
    task = load_task(name)
    records = {c.constraint_id: c.oracle_response for lv in task.levels for c in task.level(lv).hidden_constraints
               if c.is_task_specific}  # fmt: skip
    return tuple(records.values())


def builtin_background(exclude: Collection[str] = (), min_df: int = 2) -> Background:
    """Return the background of the built-in tasks not in ``exclude`` (the default's recipe)."""
    names = [n for n in list_tasks() if n not in exclude]
    responses = [r for n in names for r in _builtin_responses(n)]
    return build_background((_builtin_stems(n) for n in names), min_df=min_df, responses=responses)


def _task_of(level_label: str) -> str:
    return level_label.rsplit("/", 1)[0]


Build = Callable[[str], Callable[[Sequence[Document]], LexicalRouter]]


def trigger_samples(levels: Levels, build: Build) -> list[GateSample]:
    """Return the gate samples of the leave-one-trigger-out questions of ``levels`` (``build``: per task)."""
    samples = []
    for label, data in levels:
        for reduced, asked in leave_one_out(documents_for(data)):
            router = build(_task_of(label))(reduced)
            for phrase, i in asked:
                doc_id = reduced[i].doc_id
                samples.append(gate_sample(router, reduced, phrase, _task_of(label), "trigger", [doc_id], doc_id))
    return samples


def label_samples(
    labels: Iterable[LabelledQuestion],
    data_for: Callable[[LabelledQuestion], UserAgentData],
    build: Build,
) -> list[GateSample]:
    """Return the gate samples of labelled questions (one router per level; ``build``: per task)."""
    routers: dict[tuple[str, str, str], tuple[LexicalRouter, tuple[Document, ...]]] = {}
    samples = []
    for label in labels:
        if label.key not in routers:
            docs = documents_for(data_for(label))
            routers[label.key] = build(LabelData.task_name(label))(docs), docs
        router, docs = routers[label.key]
        task = LabelData.task_name(label)
        samples.append(gate_sample(router, docs, label.question, task, label.kind, label.records, label.of))
    return samples


@dataclass(frozen=True)
class RouterFit:
    """Everything a lexical router fits: ranker weights, background and gate (and the router class they are for)."""

    weights: LexicalWeights = DEFAULT_WEIGHTS
    background: Background | None = None
    gate: GateWeights = DEFAULT_GATE
    router_class: type[LexicalRouter] = LexicalRouter

    def router(self, documents: Sequence[Document]) -> LexicalRouter:
        """Return the router with these constants over ``documents``."""
        return self.router_class(documents, self.weights, gate=self.gate, background=self.background)


def fit_gate(
    labels: Iterable[LabelledQuestion],
    data_for: Callable[[LabelledQuestion], UserAgentData],
    levels: Levels,
    fit: RouterFit,
    background_for: Callable[[str], Background] | None = None,
    **options: Any,
) -> GateWeights:
    """Fit the gate on ``labels`` and the leave-one-trigger-out questions of ``levels``.

    Args:
        labels: The training questions.
        data_for: Their levels' User Agent Data.
        levels: The training task levels.
        fit: The ranker weights and background to fit under, and the gate's unfitted fields.
        background_for: The background of each training task's questions (``fit.background`` for all when
            omitted; a member task's own words do not count themselves, see
            :meth:`~icae_env.user_agent.features.background.Background.specificity`).
        **options: ``trigger_weight``, ``l2``, ``max_false_reveal``, ``min_off_topic``
            (:func:`~benchmarks.router_fit.gate_fit.fit_gate_samples`).
    """

    def build(task: str) -> Callable[[Sequence[Document]], LexicalRouter]:
        background = background_for(task) if background_for else fit.background
        return replace(fit, background=background).router

    samples = label_samples(labels, data_for, build) + trigger_samples(levels, build)
    return fit_gate_samples(samples, fit.gate, **options)


def fit_router(
    labels: Iterable[LabelledQuestion],
    tasks: Collection[str],
    data_for: LabelData | None = None,
    router_class: type[LexicalRouter] = LexicalRouter,
    **options: Any,
) -> RouterFit:
    """Fit ranker, background and gate on the built-in ``tasks`` and their labelled questions only.

    Args:
        labels: Labelled questions; only those of built-in ``tasks`` are used.
        tasks: Built-in task names (``builtin/<name>``).
        data_for: Resolves the labels' levels (a fresh :class:`LabelData` by default).
        router_class: The router whose gate is fitted (its ``default_gate`` gives the unfitted fields).
        **options: Gate fit options (:func:`fit_gate`).
    """
    data_for = data_for or LabelData()
    levels = builtin_levels(sorted(tasks))
    chosen = [q for q in labels if q.source == "builtin" and LabelData.task_name(q) in tasks]
    others = set(list_tasks()) - set(tasks)
    base = RouterFit(fit_lexical_weights(levels, router_class=router_class), builtin_background(exclude=others),
                     router_class.default_gate, router_class)  # fmt: skip
    return replace(base, gate=fit_gate(chosen, data_for, levels, base, **options))


def fit_default_router(labels: Iterable[LabelledQuestion] | str, **options: Any) -> RouterFit:
    """Reproduce the shipped defaults: :func:`fit_router` on every built-in task (``labels`` may be a path)."""
    questions = load_labels(labels) if isinstance(labels, str) else list(labels)
    return fit_router(questions, set(list_tasks()), **options)
