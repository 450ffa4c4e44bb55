"""The default ``lexical`` router: a numpy inverted index over triggers, records and responses.

Each document (record, context pointer, API signature) is indexed in five TF-IDF views (stemmed words plus
programming-concept tokens; cosine similarity):

* its triggers as one bag of words and word bigrams, so a paraphrase that borrows words from several triggers
  still meets it;
* character 3/4-grams of its triggers, for morphology and identifiers (``feature1_1_amd``);
* its response text, which restates the fact in other words, and its best-matching response sentence;
* triggers and response together.

The score is a weighted sum of the cosines times a prior by kind: a whole test-case file only competes at full
weight when the question is about tests or examples, and context pointers and the API signature yield to records.
A question that restates a trigger exactly (after normalisation) always reaches its document. A question is
answered only when enough of its words are known to the task and the best score clears a threshold
(so that off-topic questions get the fallback); further documents must come close to the best one, so that
replies stay focused. Everything is deterministic; weights were calibrated by leave-one-trigger-out runs
(``benchmarks/router_quality.py``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icae_env.user_agent.base import Document, Match
from icae_env.user_agent.text import char_ngrams, tokens

__all__ = ["LexicalRouter", "LexicalWeights"]

_TEST_WORDS = frozenset({"~test", "case", "exampl", "sampl", "featur", "fixtur", "expect"})
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+|\n+")
_TEST_CASE_RESPONSE_CHARS = 300


@dataclass(frozen=True)
class LexicalWeights:
    """Weights, priors and thresholds of the lexical score."""

    bag: float = 0.4
    chars: float = 0.2
    response: float = 0.3
    sentence: float = 0.2
    combined: float = 0.6
    test_case_prior: float = 0.4
    pointer_prior: float = 0.7
    threshold: float = 0.25
    relative: float = 0.75
    min_known: float = 0.3
    exact: float = 1.0


class _Index:
    """A sparse TF-IDF matrix stored as postings in numpy arrays, with L2-normalised rows."""

    def __init__(self, rows: Sequence[list[str]], owners: Sequence[int], n_docs: int) -> None:
        df: Counter[str] = Counter()
        for row in rows:
            df.update(set(row))
        n_rows = max(len(rows), 1)
        self.idf = {t: math.log(1 + n_rows / c) for t, c in df.items()}
        self.vocab = {t: i for i, t in enumerate(sorted(df))}
        postings: list[list[tuple[int, float]]] = [[] for _ in self.vocab]
        for r, row in enumerate(rows):
            weights = {t: (1 + math.log(c)) * self.idf[t] for t, c in Counter(row).items()}
            norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
            for t, w in weights.items():
                postings[self.vocab[t]].append((r, w / norm))
        self.starts = np.zeros(len(postings) + 1, dtype=np.int64)
        self.starts[1:] = np.cumsum([len(p) for p in postings])
        self.rows = np.array([r for p in postings for r, _ in p], dtype=np.int64)
        self.weights = np.array([w for p in postings for _, w in p], dtype=np.float64)
        self.owners = np.asarray(owners, dtype=np.int64)
        self.n_rows, self.n_docs = len(rows), n_docs

    def cosine(self, query: list[str]) -> np.ndarray:
        """Return the cosine of ``query`` with every row."""
        weights = {t: (1 + math.log(c)) * self.idf[t] for t, c in Counter(query).items() if t in self.vocab}
        norm = math.sqrt(sum(w * w for w in weights.values()))
        scores = np.zeros(self.n_rows)
        if not norm:
            return scores
        for term, weight in weights.items():
            i = self.vocab[term]
            lo, hi = self.starts[i], self.starts[i + 1]
            scores[self.rows[lo:hi]] += self.weights[lo:hi] * (weight / norm)
        return scores

    def best_per_doc(self, query: list[str]) -> np.ndarray:
        """Return, per document, the best cosine over the rows it owns."""
        best = np.zeros(self.n_docs)
        np.maximum.at(best, self.owners, self.cosine(query))
        return best


def _with_bigrams(words: list[str]) -> list[str]:
    stems = [w for w in words if not w.startswith("~")]
    return words + [f"{a}_{b}" for a, b in zip(stems, stems[1:], strict=False)]


def _response_text(doc: Document) -> str:
    return doc.response[:_TEST_CASE_RESPONSE_CHARS] if doc.is_test_cases else doc.response


class LexicalRouter:
    """Deterministic paraphrase-tolerant router (see the module docstring).

    Args:
        documents: The documents to route between.
        weights: Score weights, priors and thresholds.
    """

    name = "lexical"

    def __init__(self, documents: Sequence[Document], weights: LexicalWeights | None = None) -> None:
        self.documents = tuple(documents)
        self.weights = weights or LexicalWeights()
        n = len(self.documents)
        triggers = [" ".join(d.triggers) for d in self.documents]
        responses = [_response_text(d) for d in self.documents]
        sentences = [(i, s) for i, text in enumerate(responses) for s in _SENTENCE.split(text) if s.strip()]
        self._bags = _Index([_with_bigrams(tokens(t)) for t in triggers], range(n), n)
        self._chars = _Index([char_ngrams(t) for t in triggers], range(n), n)
        self._responses = _Index([tokens(r) for r in responses], range(n), n)
        self._sentences = _Index([tokens(s) for _, s in sentences], [i for i, _ in sentences], n)
        self._combined = _Index([tokens(f"{t} {r}") for t, r in zip(triggers, responses, strict=True)], range(n), n)
        self._known = set(self._bags.vocab) | set(self._responses.vocab)
        self._is_test_cases = np.array([d.is_test_cases for d in self.documents], dtype=bool)
        self._is_aux = np.array([not d.is_constraint for d in self.documents], dtype=bool)
        self._exact: dict[str, list[int]] = {}
        for i, doc in enumerate(self.documents):
            for trigger in doc.triggers:
                self._exact.setdefault(" ".join(tokens(trigger)), []).append(i)

    def scores(self, question: str) -> np.ndarray:
        """Return the combined score of every document for ``question`` (zeros when too few words are known)."""
        words = tokens(question)
        if not self.documents or not words:
            return np.zeros(len(self.documents))
        w = self.weights
        if sum(t in self._known for t in words) / len(words) < w.min_known:
            return np.zeros(len(self.documents))
        score = (
            w.bag * self._bags.cosine(_with_bigrams(words))
            + w.chars * self._chars.cosine(char_ngrams(question))
            + w.response * self._responses.cosine(words)
            + w.sentence * self._sentences.best_per_doc(words)
            + w.combined * self._combined.cosine(words)
        )
        if not _TEST_WORDS.intersection(words):
            score[self._is_test_cases] *= w.test_case_prior
        score[self._is_aux] *= w.pointer_prior
        score[self._exact.get(" ".join(words), [])] += w.exact
        return score

    def route(self, question: str) -> list[Match]:
        """Return documents above the threshold and close to the best, best first (ties by index)."""
        scores = self.scores(question)
        if not scores.size:
            return []
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        top = scores[order[0]]
        if top < self.weights.threshold:
            return []
        floor = max(self.weights.threshold, self.weights.relative * top)
        return [Match(i, float(scores[i])) for i in order if scores[i] >= floor]
