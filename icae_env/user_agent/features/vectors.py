"""Sentence vectors of a task level's documents: the cosine views that the vector gate and the routers share.

Every trigger, every response and every response's first sentence of a level is embedded once (by whatever encoder
a router brings: the shipped static encoder, or sentence-transformers in the opt-in ``embedding`` router); a
question's views of a document are then four cosines, :data:`COSINE_VIEWS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from icae_env.user_agent.base import Document, routable_response
from icae_env.user_agent.features.text import lead_sentence

__all__ = ["COSINE_VIEWS", "DocumentVectors"]

#: The columns of :meth:`DocumentVectors.cosines`: the nearest trigger, the triggers on average, the response and
#: the response's first sentence.
COSINE_VIEWS = ("nearest", "triggers", "response", "lead")
_RESPONSE_CHARS = 1000


class DocumentVectors:
    """Unit vectors of a task level's documents and their cosines with a question's vector.

    Every trigger, every response and every response's first sentence is embedded once; the cosines are the first
    four columns, :data:`COSINE_VIEWS`.

    Args:
        documents: The documents.
        embed: Returns one unit row per text.
    """

    def __init__(self, documents: Sequence[Document], embed: Callable[[Sequence[str]], np.ndarray]) -> None:
        n = len(documents)
        phrases = [(i, t) for i, d in enumerate(documents) for t in d.triggers]
        self.triggers = np.asarray(embed([t for _, t in phrases]), dtype=np.float64)
        self.owner = np.array([i for i, _ in phrases], dtype=np.intp)
        self.count = np.maximum(np.bincount(self.owner, minlength=n), 1)
        responses = [routable_response(d) for d in documents]
        self.responses = np.asarray(embed([r[:_RESPONSE_CHARS] for r in responses]), dtype=np.float64)
        self.leads = np.asarray(embed([lead_sentence(r) for r in responses]), dtype=np.float64)

    def cosines(self, vector: np.ndarray) -> np.ndarray:
        """Return each document's cosines with ``vector``, shape ``(documents, 4)``.

        The columns: its nearest trigger, its triggers on average, its response and its response's first sentence.
        """
        n = len(self.responses)
        per_trigger = self.triggers @ vector
        nearest = np.full(n, -1.0)
        np.maximum.at(nearest, self.owner, per_trigger)
        mean = np.bincount(self.owner, weights=per_trigger, minlength=n) / self.count
        return np.stack([nearest, mean, self.responses @ vector, self.leads @ vector], axis=1)
