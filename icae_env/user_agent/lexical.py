"""The default ``lexical`` router: a fitted linear ranker over numpy inverted indexes of a task's documents.

Every document (record, context pointer, API signature) is seen through six views of a question. The word views
use stemmed words plus programming-concept tokens (:mod:`icae_env.user_agent.text`) and one smoothed inverse
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
questions of the built-in tasks only (:func:`icae_env.user_agent.evaluation.fit_lexical_weights`,
``python benchmarks/router_quality.py --fit``); the ICAE sample served as held-out check. They are plain constants:
nothing is learned at run time and nothing names a word or a task. (Two views get negative weights: they correct
for the overlap between views, not for any vocabulary.)

A question is answered only when it is on topic: enough of its words are known to the task (``min_known``) and some
document contains a fair share of its information (``min_support``, unknown words weighing as the rarest), so that
off-topic questions get the fallback. A question that restates a trigger exactly (after normalisation) always
reaches its document. A further document joins the reply only when its score is within ``margin`` of the best one:
scores are logits of the fitted softmax, so the margin bounds how much less likely the extra document is. Replies
stay focused, while a genuinely ambiguous question (a task's own test-script record against the generic harness
record, say) gets both candidates. Everything is deterministic and picklable.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from icae_env.user_agent.base import Document, Match
from icae_env.user_agent.text import char_ngrams, tokens, tokens_and_char_ngrams

__all__ = [
    "COEFFICIENTS",
    "DEFAULT_WEIGHTS",
    "LexicalRouter",
    "LexicalWeights",
    "VIEWS",
    "about_tests",
    "lead_sentence",
    "routable_response",
]

#: The views of a question, in the order of :meth:`LexicalRouter.features` rows and of the fitted weights.
VIEWS = ("triggers", "combined", "lead", "chars", "nearest", "cover")
#: The columns of :meth:`LexicalRouter.design`: the views, then the kind indicators that the biases multiply.
COEFFICIENTS = (*VIEWS, "test_case_bias", "test_question_bias", "auxiliary_bias")

_TEST_WORDS = frozenset({"~test", "case", "exampl", "sampl", "featur", "fixtur", "expect"})
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+|\n+")
_TEST_CASE_RESPONSE_CHARS = 300


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

    def coefficients(self) -> np.ndarray:
        """Return the view weights and kind biases in :data:`COEFFICIENTS` order."""
        return np.array([getattr(self, name) for name in COEFFICIENTS], dtype=np.float64)


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


#: Views with at most this many (terms + 1) x rows entries are stored dense (8 MiB of float64); larger ones sparse.
_DENSE_LIMIT = 1 << 20
#: ``1 + log(c)`` for small counts ``c`` (the log-TF of :func:`_tfidf`, computed the same way).
_LOG_TF = np.array([0.0, *(1 + math.log(c) for c in range(1, 65))])


def _log_tf(counts: np.ndarray) -> np.ndarray:
    try:
        return _LOG_TF[counts]
    except IndexError:  # a count beyond the table
        return np.array([1 + math.log(c) for c in counts.tolist()], dtype=np.float64)


class _Terms:
    """A term index with IDF values, turning question terms into ``(term ids, weights)`` queries.

    Unknown terms get the id ``len(idf)``, which no view row holds. The weights are computed term by term in the
    order of the terms' dictionary or set, with the same floating-point operations as a per-term dictionary (sums
    stay Python sums), so that scores do not depend on the vectorisation.

    Args:
        idf: The IDF of each known term.
    """

    def __init__(self, idf: Mapping[str, float]) -> None:
        self.idf = idf
        self.index = {t: i for i, t in enumerate(idf)}
        self.unknown = len(self.index)
        self.values = np.array([*idf.values(), 0.0], dtype=np.float64)

    def ids(self, terms: Collection[str]) -> np.ndarray:
        """Return the id of each term (in iteration order)."""
        return np.fromiter(map(self.index.get, terms, repeat(self.unknown)), dtype=np.intp, count=len(terms))

    def mass(self, terms: Iterable[str], unknown: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Return each distinct term's IDF over their IDF mass (an unknown term weighs ``unknown`` in the mass)."""
        ids = self.ids(sorted(set(terms)))  # sorted: the sum below must not depend on hash seeds
        idf = self.values[ids]
        weighed = np.where(ids == self.unknown, unknown, idf) if unknown else idf
        return ids, idf / (sum(weighed.tolist()) or 1.0)

    def tfidf(self, terms: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
        """Return the L2-normalised log-TF x IDF weights of the known terms (:func:`_tfidf` as a query)."""
        counts = Counter(terms)
        ids = self.ids(counts)
        known = self.values[ids] != 0
        ids = ids[known]
        weights = _log_tf(np.fromiter(counts.values(), dtype=np.intp, count=len(counts))[known]) * self.values[ids]
        return ids, weights / (math.sqrt(sum((weights * weights).tolist())) or 1.0)


class _Postings:
    """A rows x terms weight matrix over a shared term index, dense when small and as per-term postings if not.

    Args:
        rows: Per row, its term weights (every term in ``index``).
        index: Term ids; id ``len(index)`` stands for unknown terms.
    """

    def __init__(self, rows: Sequence[Mapping[str, float]], index: Mapping[str, int]) -> None:
        entries = sorted((index[t], r, w) for r, row in enumerate(rows) for t, w in row.items())
        terms = np.array([e[0] for e in entries], dtype=np.intp)
        self.rows = np.array([e[1] for e in entries], dtype=np.intp)
        self.weights = np.array([e[2] for e in entries], dtype=np.float64)
        self.starts = np.searchsorted(terms, np.arange(len(index) + 2))
        self.n_rows = len(rows)
        self.dense: np.ndarray | None = None
        if (len(index) + 1) * self.n_rows <= _DENSE_LIMIT:
            self.dense = np.zeros((len(index) + 1, self.n_rows))
            self.dense[terms, self.rows] = self.weights

    def dot(self, ids: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Return, per row, the dot product with the query (term ``ids`` and their ``weights``).

        Terms are added one after another in query order (``np.add.accumulate`` adds sequentially; absent terms
        add exact zeros), so each sum is the one that adding term by term gives.
        """
        if not ids.size:
            return np.zeros(self.n_rows)
        if self.dense is not None:
            return np.add.accumulate(self.dense[ids] * weights[:, None], axis=0)[-1]
        scores = np.zeros(self.n_rows)
        for i, weight in zip(ids.tolist(), weights.tolist(), strict=True):
            lo, hi = self.starts[i], self.starts[i + 1]
            scores[self.rows[lo:hi]] += self.weights[lo:hi] * weight
        return scores


class _BestPerDoc:
    """The best of each document's rows (0 for a document without rows), for rows listed document by document.

    Args:
        owners: Per row, the document it belongs to.
        n_docs: The number of documents.
    """

    def __init__(self, owners: Sequence[int], n_docs: int) -> None:
        self.owners, self.n_docs = np.asarray(owners, dtype=np.intp), n_docs
        counts = np.bincount(self.owners, minlength=n_docs)
        grouped = n_docs > 0 and bool(np.all(np.diff(self.owners) >= 0)) and bool(np.all(counts > 0))
        self.starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp) if grouped else None

    def __call__(self, scores: np.ndarray) -> np.ndarray:
        """Return, per document, the maximum of 0 and its rows' ``scores``."""
        if self.starts is not None:
            return np.maximum(np.maximum.reduceat(scores, self.starts), 0.0)
        best = np.zeros(self.n_docs)
        np.maximum.at(best, self.owners, scores)
        return best


def _idf(bags: Sequence[set[str]]) -> dict[str, float]:
    """Return smoothed IDF, ``log(1 + N / df)``, over ``bags`` (one term set per document)."""
    df: Counter[str] = Counter()
    for bag in bags:
        df.update(bag)
    n = max(len(bags), 1)
    return {t: math.log(1 + n / c) for t, c in sorted(df.items())}  # sorted: independent of hash seeds


def _tfidf(terms: Sequence[str], idf: Mapping[str, float]) -> dict[str, float]:
    """Return L2-normalised log-TF x IDF weights of ``terms`` (terms without IDF are dropped)."""
    weights = {t: (1 + math.log(c)) * idf[t] for t, c in Counter(terms).items() if idf.get(t)}
    norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
    return {t: w / norm for t, w in weights.items()}


def _bm25_rows(rows: Sequence[list[str]], k1: float, b: float) -> list[dict[str, float]]:
    """Return BM25's saturated, length-normalised term frequencies per row, in ``[0, 1)``.

    The IDF factor comes from the question side (:meth:`_Terms.mass`).
    """
    average = sum(len(r) for r in rows) / max(len(rows), 1) or 1.0
    weighted = []
    for row in rows:
        norm = k1 * (1 - b + b * len(row) / average)
        weighted.append({t: c / (c + norm) for t, c in Counter(row).items()})
    return weighted


def _with_bigrams(words: list[str]) -> list[str]:
    stems = [w for w in words if not w.startswith("~")]
    return words + [f"{a}_{b}" for a, b in zip(stems, stems[1:], strict=False)]


def routable_response(doc: Document) -> str:
    """Return the part of a document's response that routers index (the head of a whole test-case file)."""
    return doc.response[:_TEST_CASE_RESPONSE_CHARS] if doc.is_test_cases else doc.response


def lead_sentence(text: str) -> str:
    """Return the first non-blank sentence of ``text``."""
    return next((s for s in _SENTENCE.split(text) if s.strip()), "")


def about_tests(words: Iterable[str]) -> bool:
    """Return whether a question with these tokens asks about tests, cases or examples."""
    return not _TEST_WORDS.isdisjoint(words)


class LexicalRouter:
    """Deterministic paraphrase-tolerant router (see the module docstring).

    Args:
        documents: The documents to route between.
        weights: View weights, biases and reply rules (the fitted defaults when omitted).

    Example:
        >>> router = LexicalRouter([Document("C1", "behavior", ("how are cycles reported",), "As errors.")])
        >>> [m.index for m in router.route("how do you report a cycle?")], router.route("tell me a joke")
        ([0], [])
    """

    name = "lexical"

    def __init__(self, documents: Sequence[Document], weights: LexicalWeights | None = None) -> None:
        self.documents = tuple(documents)
        self.weights = weights or DEFAULT_WEIGHTS
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

    def _build_word_views(self) -> None:
        n, w = len(self.documents), self.weights
        words = [tokens(" ".join(d.triggers)) for d in self.documents]
        bags = [_with_bigrams(t) for t in words]
        responses = [tokens(routable_response(d)) for d in self.documents]
        self._idf = _idf([set(t) | set(r) for t, r in zip(bags, responses, strict=True)])
        self._terms = terms = _Terms(self._idf)
        self._max_idf = math.log(1 + max(n, 1))
        self._triggers = _Postings(_bm25_rows(bags, w.k1, w.b), terms.index)
        # Views that take the same query share one matrix: combined and cover (IDF shares), lead and nearest
        # (cosines); their rows are stacked and the scores split again.
        combined = _bm25_rows([t + r for t, r in zip(words, responses, strict=True)], w.k1, w.b)
        self._combined_cover = _Postings(combined + [dict.fromkeys(bag, 1.0) for bag in bags], terms.index)
        leads = [_tfidf(tokens(lead_sentence(routable_response(d))), self._idf) for d in self.documents]
        phrases = [(i, tokens(t)) for i, d in enumerate(self.documents) for t in d.triggers]
        self._lead_nearest = _Postings(leads + [_tfidf(t, self._idf) for _, t in phrases], terms.index)
        self._nearest_doc = _BestPerDoc([i for i, _ in phrases], n)
        supports = [dict.fromkeys(t + r, 1.0) for t, r in zip(bags, responses, strict=True)]
        self._support = _Postings(supports, terms.index)

    def _build_char_view(self) -> None:
        grams = [char_ngrams(" ".join(d.triggers)) for d in self.documents]
        self._char_idf = _idf([set(g) for g in grams])
        self._char_terms = _Terms(self._char_idf)
        self._chars = _Postings([_tfidf(g, self._char_idf) for g in grams], self._char_terms.index)

    def answerable(self, words: list[str]) -> bool:
        """Return whether a question with these tokens is on topic (see ``min_known`` and ``min_support``)."""
        if not words or not self.documents:
            return False
        if sum(t in self._idf for t in words) / len(words) < self.weights.min_known:
            return False
        support = self._support.dot(*self._terms.mass(words, unknown=self._max_idf))
        return bool(support.max() >= self.weights.min_support)

    def features(self, question: str) -> np.ndarray:
        """Return the views of ``question``: an array of shape ``(len(VIEWS), len(documents))``."""
        return self._features(*tokens_and_char_ngrams(question))

    def _features(self, words: list[str], grams: list[str]) -> np.ndarray:
        n = len(self.documents)
        combined_cover = self._combined_cover.dot(*self._terms.mass(words))
        lead_nearest = self._lead_nearest.dot(*self._terms.tfidf(words))
        return np.stack(
            [
                self._triggers.dot(*self._terms.mass(_with_bigrams(words))),
                combined_cover[:n],
                lead_nearest[:n],
                self._chars.dot(*self._char_terms.tfidf(grams)),
                self._nearest_doc(lead_nearest[n:]),
                combined_cover[n:],
            ]
        )

    def design(self, question: str) -> np.ndarray:
        """Return the ranker's inputs, shape ``(len(documents), len(COEFFICIENTS))``: views and kind indicators."""
        return self._design(*tokens_and_char_ngrams(question))

    def _design(self, words: list[str], grams: list[str]) -> np.ndarray:
        return np.concatenate([self._features(words, grams), self._kinds[about_tests(words)]]).T

    def scores(self, question: str) -> np.ndarray:
        """Return the score of every document for ``question``, on topic or not (zeros for no words)."""
        return self._scores(*tokens_and_char_ngrams(question))

    def _scores(self, words: list[str], grams: list[str]) -> np.ndarray:
        if not self.documents or not words:
            return np.zeros(len(self.documents))
        score = self._design(words, grams) @ self._coefficients
        exact = self._exact.get(" ".join(words))
        if exact:
            score[exact] += self.weights.exact
        return score

    def route(self, question: str) -> list[Match]:
        """Return the documents above the threshold and within the margin of the best, best first (ties by index).

        An off-topic question (see :meth:`answerable`) gets no match.
        """
        words, grams = tokens_and_char_ngrams(question)
        if not self.answerable(words):
            return []
        scores = self._scores(words, grams)
        order = np.argsort(-scores, kind="stable")  # best first, ties by index
        top = scores[order[0]]
        if top < self.weights.threshold:
            return []
        floor = max(self.weights.threshold, top - self.weights.margin)
        chosen = order[scores[order] >= floor]
        return [Match(i, score) for i, score in zip(chosen.tolist(), scores[chosen].tolist(), strict=True)]
