"""The optional ``lexical-embedding`` router: the lexical ranker, with sentence embeddings in its gate.

Needs the ``embedding`` extra (:mod:`icae_env.user_agent.optional.embedding`). The ranker is the default lexical one;
only the answerability gate differs: it is the vector gate (:mod:`icae_env.user_agent.features.vector_gate`), fed with
sentence-transformers cosines. A sentence embedding sees a paraphrase that shares few words with its record, which the
lexical features cannot; that is what lowers false reveals and raises recall against the lexical gate
(``benchmarks/router_quality.py``). The price is a model forward pass per new question (milliseconds on a CPU, against
well under one for ``lexical``), so it is not the default. Its weights were fitted like the lexical gate's, on the
built-in tasks and their labelled questions only (:func:`benchmarks.router_fit.fits.fit_default_router` with
``router_class=HybridRouter``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

from icae_env.errors import ArgumentError
from icae_env.user_agent.base import Document
from icae_env.user_agent.features.background import Background
from icae_env.user_agent.features.gate import Gate, GateWeights
from icae_env.user_agent.features.vector_gate import VectorGate, VectorGateWeights
from icae_env.user_agent.optional.embedding import DEFAULT_MODEL, EmbeddingRouter
from icae_env.user_agent.routers.lexical import LexicalRouter, LexicalWeights

__all__ = ["HYBRID_GATE", "HybridRouter"]

#: Fitted on the labelled questions of the built-in tasks (see the module docstring).
HYBRID_GATE = VectorGateWeights(
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


class HybridRouter(LexicalRouter):
    """The lexical router whose gate also weighs sentence embeddings (see the module docstring).

    Args:
        documents: The documents to route between.
        weights: The lexical ranker's weights (the default ones when omitted).
        gate: The gate's weights (:data:`HYBRID_GATE` by default).
        background: The gate's background of word specificities (the built-in one when omitted).
        model: A model name of :data:`~icae_env.user_agent.optional.embedding.MODEL_PACKAGES` or a local model
            directory.
        device: Torch device to run the model on.

    Raises:
        ArgumentError: if ``gate`` is not a :class:`VectorGateWeights`.
        DependencyNotInstalled: if sentence-transformers or the model package is missing.
    """

    name = "lexical-embedding"
    default_gate: GateWeights = HYBRID_GATE

    def __init__(
        self,
        documents: Sequence[Document],
        weights: LexicalWeights | None = None,
        gate: VectorGateWeights = HYBRID_GATE,
        background: Background | None = None,
        model: str | Path = DEFAULT_MODEL,
        device: str = "cpu",
    ) -> None:
        if not isinstance(gate, VectorGateWeights):
            raise ArgumentError(f"the lexical-embedding router needs VectorGateWeights, got {type(gate).__name__}")
        self.embedder = EmbeddingRouter(documents, model=model, device=device)  # before make_gate, which uses it
        super().__init__(documents, weights, gate, background)

    def make_gate(self, weights: GateWeights, background: Background | None) -> Gate:
        """Return an :class:`VectorGate` over this router's documents and embeddings (it checks the weights)."""
        return VectorGate(self.documents, cast(VectorGateWeights, weights), background, self.embedder)
