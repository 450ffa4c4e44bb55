"""The default ``cascade`` router: the distilled router, with a cross-encoder re-checking the questions it is unsure of.

The ``distilled`` router (:mod:`icae_env.user_agent.routers.distilled`, the default before this one) ranks a task's
documents and its answerability gate gives each of the best five a probability of answering the question. Its errors
sit where that probability is middling: a paraphrase in other words, a question on another subject in the record's
words. For those questions, and only those, this router asks the cross-encoder of
:mod:`icae_env.user_agent.models.cross_encoder`, which reads question and record together:

* when the gate's best probability among the task-specific candidates (records and context pointers) lies in
  ``[low, high)`` (:func:`in_band`), each such candidate's probability becomes ``sigmoid(a * cross_logit + b *
  logit(p_gate) + shift)``, with ``shift = logit(gate threshold) - logit(threshold)`` so that ``threshold`` takes the
  place of the gate's (:func:`combine`);
* elsewhere, and for the generic records always, the gate's probabilities stand;
* the gate's reply rule (:func:`~icae_env.user_agent.features.gate.decide`: threshold, joins, generic records) then
  decides as in ``distilled``, on the shifted probabilities, with the cascade's join bar (:class:`CascadeWeights`, in
  place of the gate's 0.05, so that a reply carries no more records the question did not ask about than
  ``distilled``'s).

A clear answer or a clear non-answer costs what ``distilled`` costs (well under a millisecond); about a quarter of
questions pay the cross-encoder's forward passes over their candidates (about 0.2 s in numpy on two cores; a pair asked
before is remembered, in the process and on disk by :mod:`icae_env.user_agent.models.logit_store`), so the median
routing latency stays under a millisecond. The constants (:data:`CASCADE`) are the row of
``benchmarks/cross_encoder_probe.py``'s grid with the lowest false-reveal rate at recall >= 0.80 on the built-in tasks'
labelled questions, the cross-encoder scored out of fold; the shipped cross-encoder is that probe's three fold models,
averaged. Its weights ship with the package and are loaded (once per process) when the router is built. Deterministic,
CPU-only, numpy only, and picklable (a router built from a weights file pickles its path and loads the file again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from icae_env.errors import ArgumentError
from icae_env.user_agent.base import Document
from icae_env.user_agent.features.background import Background
from icae_env.user_agent.features.gate import Gate, GateWeights, QuestionWords
from icae_env.user_agent.features.vector_gate import VectorGate, VectorGateWeights
from icae_env.user_agent.models.cross_encoder import (
    CrossEncoder,
    cross_encoder_path,
    load_cross_encoder,
    record_text,
)
from icae_env.user_agent.models.static_encoder import StaticEncoder
from icae_env.user_agent.routers.distilled import DISTILLED_GATE, DistilledRouter, EncodedDocuments
from icae_env.user_agent.routers.lexical import LexicalWeights

__all__ = ["CASCADE", "CascadeGate", "CascadeRouter", "CascadeWeights", "combine", "in_band"]


@dataclass(frozen=True)
class CascadeWeights:
    """When the cross-encoder is asked and how its logit is combined with the gate's (module docstring).

    Attributes:
        a: Weight of the cross-encoder's logit.
        b: Weight of the gate's logit.
        threshold: The combined probability that answers (in place of the gate's threshold).
        low: The cross-encoder is asked when the gate's best task-specific probability is at least this...
        high: ...and below this.
        join: The reply rule's join bar (in place of the gate's): once a question is answered, the other
            task-specific candidates at or above it join the reply. The default is the smallest of
            ``benchmarks/router_quality.py --joins`` (0.05 to 0.4) with which the cascade reveals no more unlabelled
            task-specific records per answerable labelled question than ``distilled`` on the built-in tasks
            (:attr:`~benchmarks.router_fit.labels.LabelledQuality.unasked_reveals`: 0.526 against 0.572; 0.1 gave
            0.633): the shift of :func:`combine` moves middling probabilities up, so the gate's own bar (0.05, 0.797)
            let more records join a reply. Out of sample, on the ICAE sample: 0.243 against ``distilled``'s 0.322.
    """

    a: float
    b: float
    threshold: float
    low: float
    high: float
    join: float = 0.15

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold < 1.0 or not 0.0 <= self.low <= self.high <= 1.0 or not 0.0 < self.join <= 1.0:
            raise ArgumentError(f"cascade needs 0 < threshold < 1, 0 <= low <= high <= 1 and 0 < join <= 1, got {self}")


#: The shipped constants (module docstring; the join bar is :class:`CascadeWeights`' default).
CASCADE = CascadeWeights(a=0.5, b=0.5, threshold=0.2, low=0.1, high=0.6)


def _logit(p: np.ndarray | float) -> Any:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def in_band(gate_p: np.ndarray, generic: np.ndarray, cascade: CascadeWeights) -> bool:
    """Return whether the cross-encoder re-checks a question: its best task-specific gate probability is in the band.

    Args:
        gate_p: The gate's probability per candidate.
        generic: Per candidate, whether it is a generic record (never re-checked).
        cascade: The band (``high`` = 1 includes 1).
    """
    specific = gate_p[~generic]
    if not len(specific):
        return False
    best = float(specific.max())
    return cascade.low <= best and (best < cascade.high or cascade.high == 1.0)


def combine(
    gate_p: np.ndarray, logits: np.ndarray, generic: np.ndarray, cascade: CascadeWeights, gate_threshold: float
) -> np.ndarray:
    """Return the re-checked probabilities: ``sigmoid(a * logit + b * logit(gate_p) + shift)``, generic ones unchanged.

    Args:
        gate_p: The gate's probability per candidate.
        logits: The cross-encoder's logit per candidate (ignored for generic candidates).
        generic: Per candidate, whether it is a generic record.
        cascade: The combination's constants.
        gate_threshold: The gate's own threshold; ``shift = logit(gate_threshold) - logit(cascade.threshold)``, so that
            the gate's reply rule applied to the result answers at ``cascade.threshold``.
    """
    shift = _logit(gate_threshold) - _logit(cascade.threshold)
    mixed = 1.0 / (1.0 + np.exp(-(cascade.a * logits + cascade.b * _logit(gate_p) + shift)))
    return np.where(generic, gate_p, mixed)


class CascadeGate(VectorGate):
    """The distilled gate whose middling task-specific probabilities a cross-encoder re-checks.

    Pickles a model given as a weights file as that file's path, and loads it again (once per process) when
    unpickled; a model given as a :class:`~icae_env.user_agent.models.cross_encoder.CrossEncoder` is pickled with it.

    Args:
        documents: The documents a ranker routes between.
        weights: The gate's weights (a :class:`~icae_env.user_agent.features.vector_gate.VectorGateWeights`).
        background: The background that gives words their specificity.
        embedder: The static encoder's cosines over the same documents.
        cascade: When and how the cross-encoder is asked.
        cross_encoder: The cross-encoder, or its weights file
            (:func:`~icae_env.user_agent.models.cross_encoder.cross_encoder_path` when omitted).

    Raises:
        ModelWeightsMissing: when the weights file does not exist.
        TaskValidationError: when it does not hold a cross-encoder.
    """

    def __init__(
        self,
        documents: Sequence[Document],
        weights: VectorGateWeights,
        background: Background | None,
        embedder: EncodedDocuments,
        cascade: CascadeWeights = CASCADE,
        cross_encoder: CrossEncoder | str | Path | None = None,
    ) -> None:
        super().__init__(documents, replace(weights, join=cascade.join), background, embedder)
        self.cascade = cascade
        #: The weights file the cross-encoder was loaded from (None when it was given as a model).
        self.weights_path: Path | None = None
        if not isinstance(cross_encoder, CrossEncoder):
            self.weights_path = Path(cross_encoder or cross_encoder_path()).absolute()
            cross_encoder = load_cross_encoder(self.weights_path)
        #: The cross-encoder (one loaded from a weights file is shared by every router of the process).
        self.cross_encoder: CrossEncoder = cross_encoder
        self._texts = [record_text(d) for d in documents]
        #: How many questions the cross-encoder was asked about (for measurement).
        self.calls = 0

    def probabilities(
        self, words: QuestionWords, scores: np.ndarray, candidates: Sequence[int], known: float, question: str = ""
    ) -> np.ndarray:
        """Return, per candidate, the gate's probability, re-checked by the cross-encoder when it is middling."""
        p = super().probabilities(words, scores, candidates, known, question)
        generic = np.array([bool(self._generic[i]) for i in candidates], dtype=bool)
        if not in_band(p, generic, self.cascade):
            return p
        self.calls += 1
        specific = np.flatnonzero(~generic)
        logits = np.zeros(len(candidates))
        logits[specific] = self.cross_encoder.logits(question, [self._texts[candidates[int(k)]] for k in specific])
        return combine(p, logits, generic, self.cascade, self.weights.threshold)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        if self.weights_path is not None:
            del state["cross_encoder"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.weights_path is not None:
            self.cross_encoder = load_cross_encoder(self.weights_path)


class CascadeRouter(DistilledRouter):
    """The ``distilled`` router with the cross-encoder cascade in its gate (see the module docstring).

    Args:
        documents: The documents to route between.
        weights: Ranker weights (the distilled router's when omitted).
        gate: The gate's weights (:data:`~icae_env.user_agent.routers.distilled.DISTILLED_GATE` by default); None for
            the ungated rule (used to fit the ranker; no cross-encoder is then needed).
        background: The gate's background of word specificities (the built-in one when omitted).
        encoder: The static encoder (the shipped one when omitted).
        cascade: When and how the cross-encoder is asked (:data:`CASCADE` when omitted).
        cross_encoder: The cross-encoder or its weights file (the fitted one at
            :func:`~icae_env.user_agent.models.cross_encoder.cross_encoder_path` when omitted).

    Raises:
        ModelWeightsMissing: when no weights file is found (the message says how to fit one).
        TaskValidationError: when the weights file does not hold a cross-encoder.
        ArgumentError: if ``gate`` is not a :class:`~icae_env.user_agent.features.vector_gate.VectorGateWeights`.
    """

    name = "cascade"

    def __init__(
        self,
        documents: Sequence[Document],
        weights: LexicalWeights | None = None,
        gate: GateWeights | None = DISTILLED_GATE,
        background: Background | None = None,
        encoder: StaticEncoder | None = None,
        cascade: CascadeWeights = CASCADE,
        cross_encoder: CrossEncoder | str | Path | None = None,
    ) -> None:
        self.cascade, self.cross_encoder = cascade, cross_encoder  # before make_gate, which uses them
        super().__init__(documents, weights, gate, background, encoder)

    def make_gate(self, weights: GateWeights, background: Background | None) -> Gate:
        """Return a :class:`CascadeGate` over the static encoder's cosines and the cross-encoder."""
        if not isinstance(weights, VectorGateWeights):
            raise ArgumentError(f"the cascade gate needs VectorGateWeights, got {type(weights).__name__}")
        return CascadeGate(self.documents, weights, background, self.encoded, self.cascade, self.cross_encoder)
