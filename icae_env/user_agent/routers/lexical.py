"""The ``lexical`` router: a fitted linear ranker over numpy inverted indexes of a task's documents.

Every document (record, context pointer, API signature) is seen through six views of a question. The word views
use stemmed words plus programming-concept tokens (:mod:`icae_env.user_agent.features.text`) and one smoothed inverse
document frequency shared by all of them, computed over the documents themselves (each document being its
triggers and response together), so that a word common to the task weighs little in every view:

* ``triggers``: BM25 over the document's triggers as one bag of words and word bigrams, so that a paraphrase that
  borrows words from several triggers still meets it;
* ``combined``: BM25 over triggers and response together (the response restates the fact in other words);
* ``lead``: the cosine with the response's first sentence, which usually states the fact itself;
* ``chars``: the cosine of character 3/4-grams of the triggers, for morphology and identifiers;
* ``nearest``: the cosine with the nearest single trigger;
* ``cover``: the share of the question's IDF mass found among the triggers' words.

BM25 scores (with the usual ``k1 = 1.2``, ``b = 0.75``) and ``cover`` are divided by the question's IDF mass, so
every view lies in ``[0, 1]``. The score of a document is a weighted sum of its views plus a bias by kind: a whole
test-case file yields unless the question is about tests or examples, and context pointers and the API signature
yield to records. The weights were fitted once, offline, with a softmax ranking loss on the leave-one-trigger-out
questions of the built-in tasks only (:func:`benchmarks.router_fit.fits.fit_lexical_weights`,
``python benchmarks/router_quality.py --fit``); the ICAE sample served as held-out check. They are plain constants:
nothing is learned at run time and nothing names a word or a task. (Two views get negative weights: they correct
for the overlap between views, not for any vocabulary.)

The ranker only orders documents; which of them answer the question is decided by the answerability gate
(:mod:`icae_env.user_agent.features.gate`), a logistic model over a few scale-free features of the ranker's best
candidates (fitted on hand-labelled questions of the built-in tasks), so that a question no record answers gets the
fallback even though some document always scores best. A question that restates a trigger exactly (after normalisation)
gets a large bonus and reaches its document. With ``gate=None`` the rule from before the gate applies: a question is
answered when it is on topic (``min_known`` of its words known to the task, ``min_support`` of its information in
some document) and the best score reaches ``threshold``; further documents join within ``margin`` of the best.
Everything is deterministic, numpy-only and picklable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icae_env.errors import ArgumentError
from icae_env.user_agent.base import Document, Match, routable_response
from icae_env.user_agent.features.background import Background
from icae_env.user_agent.features.gate import DEFAULT_GATE, Gate, GateWeights
from icae_env.user_agent.features.index import BestPerDoc, Postings, Terms, bm25_rows, idf, tfidf
from icae_env.user_agent.features.text import (
    about_tests,
    char_ngrams,
    lead_sentence,
    tokens,
    tokens_and_char_ngrams,
    with_bigrams,
)

__all__ = [
    "COEFFICIENTS",
    "DEFAULT_WEIGHTS",
    "LexicalRouter",
    "LexicalWeights",
    "VIEWS",
    "routable_response",
]

#: The views of a question, in the order of :meth:`LexicalRouter.features` rows and of the fitted weights.
VIEWS = ("triggers", "combined", "lead", "chars", "nearest", "cover")
#: The columns of :meth:`LexicalRouter.design`: the views, then the kind indicators that the biases multiply.
COEFFICIENTS = (*VIEWS, "test_case_bias", "test_question_bias", "auxiliary_bias")


@dataclass(frozen=True)
class LexicalWeights:
    """Weights of the views, biases by kind, and the reply rules.

    Attributes:
        triggers: Weight of the BM25 score over the trigger bag.
        combined: Weight of the BM25 score over triggers and response together.
        lead: Weight of the first response sentence's cosine.
        chars: Weight of the character n-gram cosine over the triggers.
        nearest: Weight of the nearest single trigger's cosine.
        cover: Weight of the share of the question's IDF mass found among the triggers.
        test_case_bias: Added to a test-case record when the question is not about tests or examples.
        test_question_bias: Added to a test-case record when the question is about tests or examples.
        auxiliary_bias: Added to context pointers and the API signature.
        threshold: The best score must reach this for the question to be answered.
        margin: Further documents must score at least ``best - margin``.
        min_known: The share of the question's words the task must know for it to be answered.
        min_support: The share of the question's IDF mass (unknown words weighing as the rarest) that its best
            supporting document (triggers and response) must contain for it to be answered.
        exact: Added to a document one of whose triggers equals the question after normalisation.
        k1: BM25 term-frequency saturation.
        b: BM25 length normalisation.
    """

    triggers: float = 0.0
    combined: float = 0.0
    lead: float = 0.0
    chars: float = 0.0
    nearest: float = 0.0
    cover: float = 0.0
    test_case_bias: float = 0.0
    test_question_bias: float = 0.0
    auxiliary_bias: float = 0.0
    threshold: float = 0.5
    margin: float = 1.5
    min_known: float = 0.4
    min_support: float = 0.25
    exact: float = 10.0
    k1: float = 1.2
    b: float = 0.75

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Return the names of the design columns these weights multiply (:data:`COEFFICIENTS` here)."""
        return COEFFICIENTS

    def coefficients(self) -> np.ndarray:
        """Return the view weights and kind biases in :meth:`names` order."""
        return np.array([getattr(self, name) for name in self.names()], dtype=np.float64)


#: Weights fitted on the built-in tasks' leave-one-trigger-out questions (see the module docstring).
DEFAULT_WEIGHTS = LexicalWeights(
    triggers=4.36,
    combined=7.1,
    lead=4.29,
    chars=2.8,
    nearest=-0.77,
    cover=-1.91,
    test_case_bias=-4.52,
    test_question_bias=-2.13,
    auxiliary_bias=-6.58,
)


class LexicalRouter:
    """Deterministic paraphrase-tolerant router (see the module docstring).

    Args:
        documents: The documents to route between.
        weights: View weights, biases and reply rules (the fitted defaults when omitted).
        gate: The answerability gate's weights (:data:`~icae_env.user_agent.features.gate.DEFAULT_GATE` by default);
            None for the ungated rule (``threshold`` and ``margin``).
        background: The gate's background of word specificities (the built-in one when omitted).

    Example:
        >>> router = LexicalRouter([Document("C1", "behavior", ("how are cycles reported",), "As errors.")])
        >>> [m.index for m in router.route("how do you report a cycle?")], router.route("tell me a joke")
        ([0], [])
    """

    name = "lexical"
    #: The gate weights :func:`~benchmarks.router_fit.fits.fit_router` starts from for this class.
    default_gate: GateWeights = DEFAULT_GATE
    #: The ranker weights used when none are given (and that :func:`~benchmarks.router_fit.fits.fit_router`
    #: starts from); a router with extra views has weights that name them.
    default_weights: LexicalWeights = DEFAULT_WEIGHTS

    def __init__(
        self,
        documents: Sequence[Document],
        weights: LexicalWeights | None = None,
        gate: GateWeights | None = DEFAULT_GATE,
        background: Background | None = None,
    ) -> None:
        self.documents = tuple(documents)
        self.weights = weights or self.default_weights
        if self.weights.names() != self.default_weights.names():
            raise ArgumentError(
                f"{type(self).__name__} weighs the views {list(self.default_weights.names())}; "
                f"{type(self.weights).__name__} has weights for {list(self.weights.names())}"
            )
        self.gate = None if gate is None else self.make_gate(gate, background)
        self._coefficients = self.weights.coefficients()
        self._build_word_views()
        self._build_char_view()
        self._is_test_cases = np.array([d.is_test_cases for d in self.documents], dtype=bool)
        self._is_aux = np.array([not d.is_constraint for d in self.documents], dtype=bool)
        tests, aux = self._is_test_cases.astype(np.float64), self._is_aux.astype(np.float64)
        self._kinds = {about: np.stack([tests * (not about), tests * about, aux]) for about in (False, True)}
        self._exact: dict[str, list[int]] = {}
        for i, doc in enumerate(self.documents):
            for trigger in doc.triggers:
                self._exact.setdefault(" ".join(tokens(trigger)), []).append(i)

    @classmethod
    def ranker(cls, documents: Sequence[Document], weights: LexicalWeights) -> LexicalRouter:
        """Return a gate-less router whose :meth:`design` gives this class's ranker inputs (for fitting them)."""
        return LexicalRouter(documents, weights, gate=None)

    def make_gate(self, weights: GateWeights, background: Background | None) -> Gate:
        """Return the answerability gate over this router's documents (a subclass may return another kind)."""
        return Gate(self.documents, weights, background)

    def _build_word_views(self) -> None:
        n, w = len(self.documents), self.weights
        words = [tokens(" ".join(d.triggers)) for d in self.documents]
        bags = [with_bigrams(t) for t in words]
        responses = [tokens(routable_response(d)) for d in self.documents]
        self._idf = idf([set(t) | set(r) for t, r in zip(bags, responses, strict=True)])
        self._terms = terms = Terms(self._idf)
        self._max_idf = math.log(1 + max(n, 1))
        self._triggers = Postings(bm25_rows(bags, w.k1, w.b), terms.index)
        # Views that take the same query share one matrix: combined and cover (IDF shares), lead and nearest
        # (cosines); their rows are stacked and the scores split again.
        combined = bm25_rows([t + r for t, r in zip(words, responses, strict=True)], w.k1, w.b)
        self._combined_cover = Postings(combined + [dict.fromkeys(bag, 1.0) for bag in bags], terms.index)
        leads = [tfidf(tokens(lead_sentence(routable_response(d))), self._idf) for d in self.documents]
        phrases = [(i, tokens(t)) for i, d in enumerate(self.documents) for t in d.triggers]
        self._lead_nearest = Postings(leads + [tfidf(t, self._idf) for _, t in phrases], terms.index)
        self._nearest_doc = BestPerDoc([i for i, _ in phrases], n)
        supports = [dict.fromkeys(t + r, 1.0) for t, r in zip(bags, responses, strict=True)]
        self._support = Postings(supports, terms.index)

    def _build_char_view(self) -> None:
        grams = [char_ngrams(" ".join(d.triggers)) for d in self.documents]
        self._char_idf = idf([set(g) for g in grams])
        self._char_terms = Terms(self._char_idf)
        self._chars = Postings([tfidf(g, self._char_idf) for g in grams], self._char_terms.index)

    def answerable(self, words: list[str]) -> bool:
        """Return whether a question with these tokens is on topic (see ``min_known`` and ``min_support``)."""
        if not words or not self.documents:
            return False
        if sum(t in self._idf for t in words) / len(words) < self.weights.min_known:
            return False
        support = self._support.dot(*self._terms.mass(words, unknown=self._max_idf))
        return bool(support.max() >= self.weights.min_support)

    def known_share(self, words: list[str]) -> float:
        """Return the share of a question's tokens that the task's documents know (0 for no tokens)."""
        return sum(t in self._idf for t in words) / len(words) if words else 0.0

    def features(self, question: str) -> np.ndarray:
        """Return the views of ``question``: an array of shape ``(len(VIEWS), len(documents))``."""
        return self._features(*tokens_and_char_ngrams(question))

    def _features(self, words: list[str], grams: list[str]) -> np.ndarray:
        n = len(self.documents)
        combined_cover = self._combined_cover.dot(*self._terms.mass(words))
        lead_nearest = self._lead_nearest.dot(*self._terms.tfidf(words))
        return np.stack(
            [
                self._triggers.dot(*self._terms.mass(with_bigrams(words))),
                combined_cover[:n],
                lead_nearest[:n],
                self._chars.dot(*self._char_terms.tfidf(grams)),
                self._nearest_doc(lead_nearest[n:]),
                combined_cover[n:],
            ]
        )

    def design(self, question: str) -> np.ndarray:
        """Return the ranker's inputs, shape ``(len(documents), len(weights.names()))``.

        The columns are the views, the kind indicators, then :meth:`extra_views`.
        """
        return self._design(question, *tokens_and_char_ngrams(question))

    def _design(self, question: str, words: list[str], grams: list[str]) -> np.ndarray:
        views = [self._features(words, grams), self._kinds[about_tests(words)], self.extra_views(question)]
        return np.concatenate(views).T

    def extra_views(self, question: str) -> np.ndarray:
        """Return the views after :data:`COEFFICIENTS`, shape ``(k, len(documents))``.

        None here; a subclass may add some, weighed by a :class:`LexicalWeights` subclass whose
        :meth:`~LexicalWeights.names` lists them.
        """
        return np.zeros((0, len(self.documents)))

    def scores(self, question: str) -> np.ndarray:
        """Return the score of every document for ``question``, on topic or not (zeros for no words)."""
        return self._scores(question, *tokens_and_char_ngrams(question))

    def _scores(self, question: str, words: list[str], grams: list[str]) -> np.ndarray:
        if not self.documents or not words:
            return np.zeros(len(self.documents))
        score = self._design(question, words, grams) @ self._coefficients
        exact = self._exact.get(" ".join(words))
        if exact:
            score[exact] += self.weights.exact
        return score

    def route(self, question: str) -> list[Match]:
        """Return the documents that answer ``question``, best first (ties by index).

        With a gate, the documents are the ranker's best candidates that the gate keeps. Without one
        (``gate=None``, the rule before the gate), an off-topic question (see :meth:`answerable`) gets no match and
        the documents are those above ``threshold`` and within ``margin`` of the best.
        """
        words, grams = tokens_and_char_ngrams(question)
        if self.gate is not None:
            if not words or not self.documents:
                return []
            scores = self._scores(question, words, grams)
            chosen = self.gate.select(self.gate.question_words(question), scores, self.known_share(words), question)
            return [Match(i, float(scores[i])) for i in chosen]
        if not self.answerable(words):
            return []
        scores = self._scores(question, words, grams)
        order = np.argsort(-scores, kind="stable")  # best first, ties by index
        top = scores[order[0]]
        if top < self.weights.threshold:
            return []
        floor = max(self.weights.threshold, top - self.weights.margin)
        chosen = order[scores[order] >= floor]
        return [Match(i, score) for i, score in zip(chosen.tolist(), scores[chosen].tolist(), strict=True)]
