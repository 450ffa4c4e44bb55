"""The ``distilled`` router: the lexical ranker and gate, plus cosines of a distilled static encoder.

The lexical router (:mod:`icae_env.user_agent.routers.lexical`) sees a question only through the words it shares with a
record; a paraphrase in other words ("what's the out-of-the-box wait before a borrow gives up?" for a record
triggered by "default timeout") and a question on another subject in the record's words look alike to it. This router
adds what a sentence encoder knows about which words go together, at lexical speed: the static encoder of
:mod:`icae_env.user_agent.models.static_encoder` (distilled from all-MiniLM-L6-v2, numpy only) embeds every trigger,
every response and every response's first sentence once, when the router is built, and each question once. Its cosines
enter twice:

* the ranker gets four more views per document (``e_nearest``: the nearest trigger, ``e_triggers``: the triggers on
  average, ``e_response``, ``e_lead``), weighed with the lexical views (:class:`DistilledWeights`);
* the answerability gate gets the candidate's response and nearest-trigger cosines and their gaps to the best
  candidate's (the features of the ``lexical-embedding`` router's gate, :mod:`icae_env.user_agent.optional.hybrid`).

Every constant (ranker weights, gate weights, the reply rule) was fitted on the built-in tasks and their labelled
questions only (:func:`benchmarks.router_fit.fits.fit_default_router` with ``router_class=DistilledRouter``,
``python benchmarks/router_quality.py --routers distilled --fit``); the ICAE sample is out of sample. Deterministic,
CPU-only, numpy only, and picklable (the shipped encoder is not pickled: it is loaded again on first use). It is the
first stage of the default ``cascade`` router (:mod:`icae_env.user_agent.routers.cascade`), and was the default before
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from icae_env.user_agent.base import Document
from icae_env.user_agent.features.background import Background
from icae_env.user_agent.features.gate import Gate, GateWeights
from icae_env.user_agent.features.vector_gate import VectorGate, VectorGateWeights
from icae_env.user_agent.features.vectors import DocumentVectors
from icae_env.user_agent.models.static_encoder import StaticEncoder, default_encoder
from icae_env.user_agent.routers.lexical import COEFFICIENTS, LexicalRouter, LexicalWeights

__all__ = [
    "DISTILLED_GATE",
    "DISTILLED_WEIGHTS",
    "ENCODER_VIEWS",
    "DistilledRouter",
    "DistilledWeights",
    "EncodedDocuments",
]

#: The encoder's views of a document, after :data:`~icae_env.user_agent.routers.lexical.COEFFICIENTS` in the ranker.
ENCODER_VIEWS = ("e_nearest", "e_triggers", "e_response", "e_lead")


@dataclass(frozen=True)
class DistilledWeights(LexicalWeights):
    """:class:`~icae_env.user_agent.routers.lexical.LexicalWeights` plus the weights of :data:`ENCODER_VIEWS`.

    Attributes:
        e_nearest: Weight of the cosine with the nearest trigger.
        e_triggers: Weight of the mean cosine with the triggers.
        e_response: Weight of the cosine with the response.
        e_lead: Weight of the cosine with the response's first sentence.
    """

    e_nearest: float = 0.0
    e_triggers: float = 0.0
    e_response: float = 0.0
    e_lead: float = 0.0

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Return :data:`~icae_env.user_agent.routers.lexical.COEFFICIENTS` then :data:`ENCODER_VIEWS`."""
        return COEFFICIENTS + ENCODER_VIEWS


#: Fitted on the built-in tasks' leave-one-trigger-out questions (see the module docstring).
DISTILLED_WEIGHTS = DistilledWeights(
    triggers=2.31,
    combined=4.56,
    lead=2.96,
    chars=0.44,
    nearest=-0.39,
    cover=-2.28,
    test_case_bias=-4.43,
    test_question_bias=-1.49,
    auxiliary_bias=-6.73,
    e_nearest=3.53,
    e_triggers=3.97,
    e_response=4.06,
    e_lead=1.59,
)
#: Fitted on the labelled questions of the built-in tasks (see the module docstring).
DISTILLED_GATE = VectorGateWeights(
    score=0.122,
    gap=-1.056,
    trigger_match=0.756,
    response_match=0.425,
    concept_match=1.607,
    unmatched_known=-0.256,
    unmatched_unknown=-0.09,
    cover=1.556,
    focus=-0.254,
    unmatched_focus=-0.385,
    known=0.751,
    generic=-0.278,
    generic_focus=-0.842,
    bias=-3.205,
    threshold=0.4,
    join=0.05,
    generic_threshold=0.1,
    response_cosine=1.047,
    trigger_cosine=1.047,
    response_cosine_gap=-0.994,
    trigger_cosine_gap=-0.99,
)


class EncodedDocuments:
    """A task level's documents embedded by a static encoder, and their cosines with a question.

    Pickles without its vectors (and without the shipped encoder, which is loaded again): they are embedded again
    when unpickled, by the encoder then installed, so that question and documents always share one encoder.

    Args:
        documents: The documents.
        encoder: The encoder (the shipped one when omitted).
    """

    def __init__(self, documents: Sequence[Document], encoder: StaticEncoder | None = None) -> None:
        self.documents = tuple(documents)
        self.encoder = encoder or default_encoder()
        self._vectors = DocumentVectors(self.documents, self.encoder.encode_many)

    def design(self, question: str) -> np.ndarray:
        """Return each document's cosines with ``question``, shape ``(len(documents), 4)``.

        The columns are the four :data:`~icae_env.user_agent.features.vectors.COSINE_VIEWS`: with the
        nearest trigger, with the triggers on average, with the response and with its first sentence.
        """
        return self._vectors.cosines(self.encoder.encode(question))

    def __getstate__(self) -> dict[str, Any]:
        shipped = self.encoder is default_encoder()
        return {"documents": self.documents, "encoder": None if shipped else self.encoder}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["documents"], state["encoder"])  # type: ignore[misc]


class DistilledRouter(LexicalRouter):
    """The lexical router with a distilled static encoder's cosines in its ranker and gate (module docstring).

    Args:
        documents: The documents to route between.
        weights: Ranker weights (:data:`DISTILLED_WEIGHTS` when omitted).
        gate: The gate's weights (:data:`DISTILLED_GATE` by default); None for the lexical router's ungated rule,
            whose threshold was not calibrated for these views (used to fit the ranker, :meth:`ranker`).
        background: The gate's background of word specificities (the built-in one when omitted).
        encoder: The static encoder (the shipped one when omitted).

    Raises:
        ArgumentError: if ``weights`` do not weigh :data:`ENCODER_VIEWS` (not a :class:`DistilledWeights`) or
            ``gate`` does not weigh the encoder's features (not a
            :class:`~icae_env.user_agent.features.vector_gate.VectorGateWeights`).
    """

    name = "distilled"
    default_gate: GateWeights = DISTILLED_GATE
    default_weights: LexicalWeights = DISTILLED_WEIGHTS

    def __init__(
        self,
        documents: Sequence[Document],
        weights: LexicalWeights | None = None,
        gate: GateWeights | None = DISTILLED_GATE,
        background: Background | None = None,
        encoder: StaticEncoder | None = None,
    ) -> None:
        self.encoded = EncodedDocuments(documents, encoder)  # before make_gate, which uses it
        super().__init__(documents, weights, gate, background)

    @classmethod
    def ranker(cls, documents: Sequence[Document], weights: LexicalWeights) -> LexicalRouter:
        """Return a gate-less router whose :meth:`design` gives this router's ranker inputs (for fitting)."""
        return cls(documents, weights, gate=None)

    def extra_views(self, question: str) -> np.ndarray:
        """Return the encoder's views (:data:`ENCODER_VIEWS`), shape ``(4, len(documents))``."""
        return self.encoded.design(question).T

    def make_gate(self, weights: GateWeights, background: Background | None) -> Gate:
        """Return an :class:`~icae_env.user_agent.features.vector_gate.VectorGate` over the encoder's cosines."""
        return VectorGate(self.documents, cast(VectorGateWeights, weights), background, self.encoded)
