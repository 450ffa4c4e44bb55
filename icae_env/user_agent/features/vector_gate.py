"""The vector gate: the answerability gate (:mod:`.gate`) with sentence-vector cosines among its features.

Besides the lexical features it weighs, per candidate, the cosine of the question's vector with the candidate's
response (``response_cosine``) and with its nearest trigger (``trigger_cosine``), and how far each is below the best
candidate's (``..._gap``). The cosines come from any source of :data:`~.vectors.COSINE_VIEWS` rows: the shipped
``distilled`` and ``cascade`` routers' static encoder, or the opt-in ``embedding`` router's sentence-transformers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from icae_env.errors import ArgumentError
from icae_env.user_agent.base import Document
from icae_env.user_agent.features.background import Background
from icae_env.user_agent.features.gate import GATE_FEATURES, Gate, GateWeights
from icae_env.user_agent.features.vectors import COSINE_VIEWS

__all__ = ["EMBEDDING_FEATURES", "Cosines", "VectorGate", "VectorGateWeights"]

#: The embedding features, after :data:`~icae_env.user_agent.features.gate.GATE_FEATURES` in the gate's columns.
EMBEDDING_FEATURES = ("response_cosine", "trigger_cosine", "response_cosine_gap", "trigger_cosine_gap")
#: The :data:`~icae_env.user_agent.features.vectors.COSINE_VIEWS` columns of the two cosines the gate weighs.
_COSINE_COLUMNS = [COSINE_VIEWS.index("response"), COSINE_VIEWS.index("nearest")]


@dataclass(frozen=True)
class VectorGateWeights(GateWeights):
    """:class:`~icae_env.user_agent.features.gate.GateWeights` plus the weights of :data:`EMBEDDING_FEATURES`.

    Attributes:
        response_cosine: Weight of the question's cosine with the candidate's response.
        trigger_cosine: Weight of its cosine with the candidate's nearest trigger.
        response_cosine_gap: Weight of how far the response cosine is below the best candidate's.
        trigger_cosine_gap: Weight of how far the trigger cosine is below the best candidate's.
    """

    response_cosine: float = 0.0
    trigger_cosine: float = 0.0
    response_cosine_gap: float = 0.0
    trigger_cosine_gap: float = 0.0

    @classmethod
    def feature_names(cls) -> tuple[str, ...]:
        """Return :data:`~icae_env.user_agent.features.gate.GATE_FEATURES` then :data:`EMBEDDING_FEATURES`."""
        return GATE_FEATURES + EMBEDDING_FEATURES


class Cosines(Protocol):
    """What :class:`VectorGate` needs: per document, its cosines with a question.

    They are the first four columns of :data:`~icae_env.user_agent.optional.embedding.EMBEDDING_COEFFICIENTS`: an
    :class:`EmbeddingRouter`, or the ``distilled`` router's
    :class:`~icae_env.user_agent.routers.distilled.EncodedDocuments`.
    """

    def design(self, question: str) -> np.ndarray:
        """Return one row per document."""


class VectorGate(Gate):
    """The gate with :data:`EMBEDDING_FEATURES` (cosines from an :class:`EmbeddingRouter` or another source).

    Args:
        documents: The documents a ranker routes between.
        weights: The fitted weights (a :class:`VectorGateWeights`).
        background: The background that gives words their specificity.
        embedder: The cosines' source over the same documents.

    Raises:
        ArgumentError: if ``weights`` do not weigh the embedding features.
    """

    extra_feature_names = EMBEDDING_FEATURES

    def __init__(
        self,
        documents: Sequence[Document],
        weights: VectorGateWeights,
        background: Background | None,
        embedder: Cosines,
    ) -> None:
        super().__init__(documents, weights, background)
        self.embedder = embedder

    def extra_features(self, question: str, candidates: Sequence[int]) -> np.ndarray:
        """Return the candidates' cosines with ``question`` and their gaps to the best (module docstring).

        Raises:
            ArgumentError: if ``question`` is blank while there are candidates (the words alone do not suffice).
        """
        if not len(candidates):
            return np.zeros((0, len(EMBEDDING_FEATURES)))
        if not question.strip():
            raise ArgumentError("the embedding gate needs the question itself, got a blank one")
        cosines = self.embedder.design(question)[list(candidates)][:, _COSINE_COLUMNS].clip(-1.0, 1.0)
        return np.hstack([cosines, cosines.max(axis=0) - cosines])
