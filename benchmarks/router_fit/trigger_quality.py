"""Leave-one-trigger-out evaluation of a router, and its off-topic rejection.

For each round ``j`` (0, 1, 2) trigger ``j`` is removed from every record, the router indexes the rest, and each
removed phrase is asked. Every record has at least three triggers, so each round removes one from all of them.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from benchmarks.router_fit.labels import quantile
from icae_env.registration import DEFAULT_ROUTER
from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.base import Document, Router
from icae_env.user_agent.grounded import MAX_POINTS, documents_for, make_router

__all__ = ["Factory", "OFF_TOPIC_QUESTIONS", "ROUNDS", "RouterQuality", "evaluate_router", "leave_one_out"]

ROUNDS = 3

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
    p90_ms: float = 0.0


def _without_trigger(doc: Document, j: int) -> Document:
    return replace(doc, triggers=doc.triggers[:j] + doc.triggers[j + 1 :])


def _askable(doc: Document, j: int) -> bool:
    return doc.is_constraint and len(doc.triggers) > j and bool(doc.response.strip())


def leave_one_out(docs: Sequence[Document]) -> Iterator[tuple[tuple[Document, ...], list[tuple[str, int]]]]:
    """Yield, per round, the documents without that round's trigger and the ``(removed phrase, index)`` pairs.

    Records with an empty response (some ICAE L3 literals) are not asked: no reply can draw on them, so routers
    never answer with them.
    """
    for j in range(ROUNDS):
        reduced = tuple(_without_trigger(d, j) if d.is_constraint and len(d.triggers) > j else d for d in docs)
        asked = [(d.triggers[j], i) for i, d in enumerate(docs) if _askable(d, j)]
        yield reduced, asked


Factory = Callable[[Sequence[Document]], Router]


def evaluate_router(
    levels: Iterable[tuple[str, UserAgentData]],
    router: str = DEFAULT_ROUTER,
    factory: Factory | None = None,
    factory_for: Callable[[str], Factory] | None = None,
    **options: object,
) -> RouterQuality:
    """Run leave-one-trigger-out and off-topic checks over ``levels``.

    Args:
        levels: ``(label, data)`` pairs, one per task level.
        router: Router name (ignored when ``factory`` or ``factory_for`` is given).
        factory: Builds a router from documents (to evaluate custom routers or weights).
        factory_for: The factory of each level label (leave-one-task-out: the fold's router); wins over
            ``factory``.
        **options: Router options.

    Returns:
        The :class:`RouterQuality`; ``misses`` lists ``(label, removed phrase, expected id, returned ids)``.
    """
    default = factory or (lambda docs: make_router(router, tuple(docs), **options))
    top1 = hit3 = answered = asked = id_total = off_fallback = off_total = 0
    latencies: list[float] = []
    misses = []
    for label, data in levels:
        build = factory_for(label) if factory_for else default
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
        p90_ms=1000 * quantile(latencies, 0.9),
    )
