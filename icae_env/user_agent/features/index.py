"""Numpy inverted indexes for the lexical routers: term ids with IDF values, weight matrices and BM25 rows.

Every sum is computed term by term in a fixed order (Python sums, ``np.add.accumulate``), so that scores are
bit-identical whatever the vectorisation and Python's hash seed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import repeat

import numpy as np

__all__ = ["BestPerDoc", "Postings", "Terms", "bm25_rows", "idf", "tfidf"]

#: Views with at most this many (terms + 1) x rows entries are stored dense (8 MiB of float64); larger ones sparse.
_DENSE_LIMIT = 1 << 20
#: ``1 + log(c)`` for small counts ``c`` (the log-TF of :func:`tfidf`, computed the same way).
_LOG_TF = np.array([0.0, *(1 + math.log(c) for c in range(1, 65))])


def _log_tf(counts: np.ndarray) -> np.ndarray:
    try:
        return _LOG_TF[counts]
    except IndexError:  # a count beyond the table
        return np.array([1 + math.log(c) for c in counts.tolist()], dtype=np.float64)


class Terms:
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
        """Return the L2-normalised log-TF x IDF weights of the known terms (:func:`tfidf` as a query)."""
        counts = Counter(terms)
        ids = self.ids(counts)
        known = self.values[ids] != 0
        ids = ids[known]
        weights = _log_tf(np.fromiter(counts.values(), dtype=np.intp, count=len(counts))[known]) * self.values[ids]
        return ids, weights / (math.sqrt(sum((weights * weights).tolist())) or 1.0)


class Postings:
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


class BestPerDoc:
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


def idf(bags: Sequence[set[str]]) -> dict[str, float]:
    """Return smoothed IDF, ``log(1 + N / df)``, over ``bags`` (one term set per document)."""
    df: Counter[str] = Counter()
    for bag in bags:
        df.update(bag)
    n = max(len(bags), 1)
    return {t: math.log(1 + n / c) for t, c in sorted(df.items())}  # sorted: independent of hash seeds


def tfidf(terms: Sequence[str], idf: Mapping[str, float]) -> dict[str, float]:
    """Return L2-normalised log-TF x IDF weights of ``terms`` (terms without IDF are dropped)."""
    weights = {t: (1 + math.log(c)) * idf[t] for t, c in Counter(terms).items() if idf.get(t)}
    norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
    return {t: w / norm for t, w in weights.items()}


def bm25_rows(rows: Sequence[list[str]], k1: float, b: float) -> list[dict[str, float]]:
    """Return BM25's saturated, length-normalised term frequencies per row, in ``[0, 1)``.

    The IDF factor comes from the question side (:meth:`Terms.mass`).
    """
    average = sum(len(r) for r in rows) / max(len(rows), 1) or 1.0
    weighted = []
    for row in rows:
        norm = k1 * (1 - b + b * len(row) / average)
        weighted.append({t: c / (c + norm) for t, c in Counter(row).items()})
    return weighted
