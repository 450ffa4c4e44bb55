"""Router quality (leave-one-trigger-out evaluation, off-topic rejection) and the fit of the routers' weights.

For each round ``j`` (0, 1, 2) trigger ``j`` is removed from every record, the router indexes the rest, and each
removed phrase is asked. Every record has at least three triggers, so each round removes one from all of them.

:func:`fit_router_weights` fits a linear router's coefficients (view weights and kind biases) on the same questions
with a softmax ranking loss (numpy, deterministic). That is how the defaults of the lexical router
(:func:`fit_lexical_weights`) and of the embedding router were obtained, from the built-in tasks only.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

import numpy as np

from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.base import Document, Router
from icae_env.user_agent.grounded import MAX_POINTS, documents_for, make_router
from icae_env.user_agent.lexical import COEFFICIENTS, DEFAULT_WEIGHTS, LexicalRouter, LexicalWeights

__all__ = [
    "RouterQuality",
    "OFF_TOPIC_QUESTIONS",
    "evaluate_router",
    "leave_one_out",
    "fit_router_weights",
    "fit_lexical_weights",
]

ROUNDS = 3
W = TypeVar("W")

#: Questions no task's User Agent should answer (generic, not drawn from any task).
OFF_TOPIC_QUESTIONS = (
    "what is the weather like today?",
    "can you tell me a joke?",
    "who won the football world cup in 2018?",
    "what is your favourite colour?",
    "how do I bake sourdough bread?",
    "what time is it in Tokyo right now?",
    "can you recommend a good laptop for gaming?",
    "what should I cook for dinner tonight?",
    "how tall is the Eiffel tower?",
    "do you like cats or dogs more?",
    "what's the capital of Australia?",
    "how do I center a div with CSS flexbox?",
    "which cloud provider is cheapest for hosting a blog?",
    "can I take Friday off next week?",
    "what is the meaning of life?",
    "who is the CEO of the company?",
    "what music do you listen to while working?",
    "how many vacation days do we get per year?",
    "what is the airspeed velocity of an unladen swallow?",
    "should we switch the office coffee brand?",
    "where is the nearest train station?",
    "how do I reset my email password?",
    "what's a good book about leadership?",
    "how do I configure kubernetes autoscaling for a GPU cluster?",
    "what is the best way to learn the guitar?",
)


@dataclass(frozen=True)
class RouterQuality:
    """Aggregated quality of a router over a set of task levels."""

    questions: int
    top1: float
    hit_at_3: float
    answered: float
    ids_per_answer: float
    off_topic_fallback: float
    median_ms: float
    misses: tuple[tuple[str, str, str, tuple[str, ...]], ...] = ()


def _without_trigger(doc: Document, j: int) -> Document:
    return replace(doc, triggers=doc.triggers[:j] + doc.triggers[j + 1 :])


def leave_one_out(docs: Sequence[Document]) -> Iterator[tuple[tuple[Document, ...], list[tuple[str, int]]]]:
    """Yield, per round, the documents without that round's trigger and the ``(removed phrase, index)`` pairs."""
    for j in range(ROUNDS):
        reduced = tuple(_without_trigger(d, j) if d.is_constraint and len(d.triggers) > j else d for d in docs)
        asked = [(d.triggers[j], i) for i, d in enumerate(docs) if d.is_constraint and len(d.triggers) > j]
        yield reduced, asked


def evaluate_router(
    levels: Iterable[tuple[str, UserAgentData]],
    router: str = "lexical",
    factory: Callable[[Sequence[Document]], Router] | None = None,
    **options: object,
) -> RouterQuality:
    """Run leave-one-trigger-out and off-topic checks over ``levels``.

    Args:
        levels: ``(label, data)`` pairs, one per task level.
        router: Router name (ignored when ``factory`` is given).
        factory: Builds a router from documents (to evaluate custom routers or weights).
        **options: Router options.

    Returns:
        The :class:`RouterQuality`; ``misses`` lists ``(label, removed phrase, expected id, returned ids)``.
    """
    build = factory or (lambda docs: make_router(router, tuple(docs), **options))
    top1 = hit3 = answered = asked = id_total = off_fallback = off_total = 0
    latencies: list[float] = []
    misses = []
    for label, data in levels:
        docs = documents_for(data)
        for reduced, asked_phrases in leave_one_out(docs):
            index = build(reduced)
            for phrase, i in asked_phrases:
                doc = docs[i]
                started = time.perf_counter()
                ids = [reduced[m.index].doc_id for m in index.route(phrase)][:MAX_POINTS]
                latencies.append(time.perf_counter() - started)
                asked += 1
                top1 += bool(ids) and ids[0] == doc.doc_id
                hit3 += doc.doc_id in ids
                answered += bool(ids)
                id_total += len(ids)
                if not ids or ids[0] != doc.doc_id:
                    misses.append((label, phrase, doc.doc_id, tuple(ids)))
        index = build(docs)
        for question in OFF_TOPIC_QUESTIONS:
            off_total += 1
            off_fallback += not index.route(question)
    return RouterQuality(
        questions=asked,
        top1=top1 / asked if asked else 0.0,
        hit_at_3=hit3 / asked if asked else 0.0,
        answered=answered / asked if asked else 0.0,
        ids_per_answer=id_total / answered if answered else 0.0,
        off_topic_fallback=off_fallback / off_total if off_total else 0.0,
        median_ms=1000 * statistics.median(latencies) if latencies else 0.0,
        misses=tuple(misses),
    )


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
    levels: Iterable[tuple[str, UserAgentData]], base: LexicalWeights = DEFAULT_WEIGHTS, **options: Any
) -> LexicalWeights:
    """Fit the lexical router's view weights and kind biases (:func:`fit_router_weights` with its design).

    Args:
        levels: ``(label, data)`` pairs, one per task level.
        base: Where the fields that are not fitted (thresholds, margin, BM25 constants) come from.
        **options: ``l2``, ``steps``, ``learning_rate``.

    Returns:
        ``base`` with the fitted view weights and biases.
    """
    return fit_router_weights(levels, lambda docs: LexicalRouter(docs, base), COEFFICIENTS, base, **options)
