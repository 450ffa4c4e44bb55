"""The optional ``lexical-embedding`` router: the lexical ranker, with sentence embeddings in its gate.

Needs the ``embedding`` extra (:mod:`icae_env.user_agent.embedding`). The ranker is the default lexical one; only the
answerability gate (:mod:`icae_env.user_agent.gate`) differs: besides the lexical features it weighs, per
candidate, the cosine of the question's embedding with the candidate's response (``response_cosine``) and with its
nearest trigger (``trigger_cosine``), and how far each is below the best candidate's (``..._gap``). A sentence
embedding sees a paraphrase that shares few words with its record, which the lexical features cannot; that is what
lowers false reveals and raises recall against the lexical gate (``benchmarks/router_quality.py``). The price is a
model forward pass per new question (milliseconds on a CPU, against well under one for ``lexical``), so it is not the
default. Its weights were fitted like the lexical gate's, on the built-in tasks and their labelled questions only
(:func:`icae_env.user_agent.evaluation.fit_default_router` with ``router_class=HybridRouter``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

import numpy as np

from icae_env.errors import ArgumentError
from icae_env.user_agent.background import Background
from icae_env.user_agent.base import Document
from icae_env.user_agent.embedding import DEFAULT_MODEL, EMBEDDING_COEFFICIENTS, EmbeddingRouter
from icae_env.user_agent.gate import GATE_FEATURES, Gate, GateWeights
from icae_env.user_agent.lexical import LexicalRouter, LexicalWeights

__all__ = ["EMBEDDING_FEATURES", "HYBRID_GATE", "Cosines", "EmbeddingGate", "HybridGateWeights", "HybridRouter"]

#: The embedding features, after :data:`~icae_env.user_agent.gate.GATE_FEATURES` in the gate's columns.
EMBEDDING_FEATURES = ("response_cosine", "trigger_cosine", "response_cosine_gap", "trigger_cosine_gap")
#: The :meth:`EmbeddingRouter.design` columns of the two cosines.
_COSINE_COLUMNS = [EMBEDDING_COEFFICIENTS.index("response"), EMBEDDING_COEFFICIENTS.index("nearest")]


@dataclass(frozen=True)
class HybridGateWeights(GateWeights):
    """:class:`~icae_env.user_agent.gate.GateWeights` plus the weights of :data:`EMBEDDING_FEATURES`.

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
        """Return :data:`~icae_env.user_agent.gate.GATE_FEATURES` then :data:`EMBEDDING_FEATURES`."""
        return GATE_FEATURES + EMBEDDING_FEATURES


#: Fitted on the labelled questions of the built-in tasks (see the module docstring).
HYBRID_GATE = HybridGateWeights(
    score=0.06,
    gap=-0.613,
    trigger_match=0.063,
    response_match=0.49,
    concept_match=2.057,
    unmatched_known=-0.158,
    unmatched_unknown=0.074,
    cover=1.66,
    focus=-0.354,
    unmatched_focus=-0.073,
    known=1.063,
    generic=-0.355,
    generic_focus=-1.157,
    bias=-4.161,
    threshold=0.4,
    join=0.05,
    generic_threshold=0.05,
    response_cosine=1.629,
    trigger_cosine=4.796,
    response_cosine_gap=-6.915,
    trigger_cosine_gap=-2.909,
)


class Cosines(Protocol):
    """What :class:`EmbeddingGate` needs: per document, its cosines with a question.

    They are the first four columns of :data:`~icae_env.user_agent.embedding.EMBEDDING_COEFFICIENTS`: an
    :class:`EmbeddingRouter`, or the ``distilled`` router's :class:`~icae_env.user_agent.distilled.EncodedDocuments`.
    """

    def design(self, question: str) -> np.ndarray:
        """Return one row per document."""


class EmbeddingGate(Gate):
    """The gate with :data:`EMBEDDING_FEATURES` (cosines from an :class:`EmbeddingRouter` or another source).

    Args:
        documents: The documents a ranker routes between.
        weights: The fitted weights (a :class:`HybridGateWeights`).
        background: The background that gives words their specificity.
        embedder: The cosines' source over the same documents.

    Raises:
        ArgumentError: if ``weights`` do not weigh the embedding features.
    """

    extra_feature_names = EMBEDDING_FEATURES

    def __init__(
        self,
        documents: Sequence[Document],
        weights: HybridGateWeights,
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


class HybridRouter(LexicalRouter):
    """The lexical router whose gate also weighs sentence embeddings (see the module docstring).

    Args:
        documents: The documents to route between.
        weights: The lexical ranker's weights (the default ones when omitted).
        gate: The gate's weights (:data:`HYBRID_GATE` by default).
        background: The gate's background of word specificities (the built-in one when omitted).
        model: A model name of :data:`~icae_env.user_agent.embedding.MODEL_PACKAGES` or a local model directory.
        device: Torch device to run the model on.

    Raises:
        ArgumentError: if ``gate`` is not a :class:`HybridGateWeights`.
        DependencyNotInstalled: if sentence-transformers or the model package is missing.
    """

    name = "lexical-embedding"
    default_gate: GateWeights = HYBRID_GATE

    def __init__(
        self,
        documents: Sequence[Document],
        weights: LexicalWeights | None = None,
        gate: HybridGateWeights = HYBRID_GATE,
        background: Background | None = None,
        model: str | Path = DEFAULT_MODEL,
        device: str = "cpu",
    ) -> None:
        if not isinstance(gate, HybridGateWeights):
            raise ArgumentError(f"the lexical-embedding router needs HybridGateWeights, got {type(gate).__name__}")
        self.embedder = EmbeddingRouter(documents, model=model, device=device)  # before make_gate, which uses it
        super().__init__(documents, weights, gate, background)

    def make_gate(self, weights: GateWeights, background: Background | None) -> Gate:
        """Return an :class:`EmbeddingGate` over this router's documents and embeddings (it checks the weights)."""
        return EmbeddingGate(self.documents, cast(HybridGateWeights, weights), background, self.embedder)
