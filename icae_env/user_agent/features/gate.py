"""The answerability gate: whether a record a ranker put on top actually answers the question.

A ranker orders a task's documents; the best one need not answer anything (every question has a best document).
The gate looks at the ranker's few best candidates and keeps those that a logistic model, fitted on hand-labelled
questions, judges to answer the question. Its features are few and scale-free, so that they mean the same on a task
the model never saw:

* ``score``: the ranker's score of the document (a logit of the ranker's softmax), and ``gap``, how far it is below
  the best document's;
* the question's content words, each weighing its specificity plus ``floor``
  (:class:`~icae_env.user_agent.features.background.Background`), split by where the document has them:
  ``trigger_match`` (a trigger has the word), ``response_match`` (only the response has it), ``concept_match``
  (only a synonym of it, weighing the concept's specificity), ``unmatched_known`` (missing from the document but
  known to the task: it points at another record) and ``unmatched_unknown`` (unknown to the task: it points
  outside the task);
* ``cover``: the matched share of that weight: a question whose subject is absent from the record is not answered
  by it, however many generic words they share;
* ``focus``: the specificity of the most specific matched word (low when the overlap is only generic words such as
  "default", "format", "error"), and ``unmatched_focus``, that of the most specific unmatched one;
* ``known``: the share of the question's tokens that the task knows at all;
* ``generic``: 1 for the generic records (ARCH/HARNESS boilerplate, test-case files, the API signature), whose
  questions are generic by nature, and ``generic_focus``, ``focus`` for them.

A word counts as contained when its stem or its concept token (:mod:`icae_env.user_agent.features.text`) is among the
document's. The probability is ``sigmoid(w . features + bias)``. A question is answered with task-specific records
(and context pointers) when one of them reaches ``threshold``; the others then join when they reach ``join``. A
generic record is answered when it reaches ``generic_threshold`` (it reveals nothing of the task, so its bar only
guards the off-topic fallback). Replies list them best ranker score first. Documents with an empty response are
never answered. The weights are plain constants fitted once, offline (:func:`benchmarks.router_fit.fits.fit_gate`):
nothing is learned at run time and nothing names a word or a task.

A subclass may append features through :meth:`Gate.extra_features` (naming them in ``extra_feature_names``); its
weights are then a :class:`GateWeights` subclass whose :meth:`~GateWeights.feature_names` lists them too (the
``lexical-embedding`` router's cosines, :mod:`icae_env.user_agent.optional.hybrid`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from icae_env.errors import ArgumentError
from icae_env.user_agent.base import Document, routable_response
from icae_env.user_agent.features.background import DEFAULT_BACKGROUND, Background
from icae_env.user_agent.features.text import content_words, tokens

__all__ = ["DEFAULT_GATE", "GATE_FEATURES", "Gate", "GateWeights", "QuestionWords"]

#: The gate's lexical inputs: the first :meth:`Gate.features` columns, in the order of the fitted weights.
GATE_FEATURES = (
    "score",
    "gap",
    "trigger_match",
    "response_match",
    "concept_match",
    "unmatched_known",
    "unmatched_unknown",
    "cover",
    "focus",
    "unmatched_focus",
    "known",
    "generic",
    "generic_focus",
)
#: A question's distinct content words as ``(stem, concept)`` pairs
# (:func:`~icae_env.user_agent.features.text.content_words`).
QuestionWords = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class GateWeights:
    """The gate's logistic weights (one per :data:`GATE_FEATURES` name), its bias and its decision rule.

    Attributes:
        score: Weight of the ranker score.
        gap: Weight of the distance below the best score.
        trigger_match: Weight of the question words a trigger has.
        response_match: Weight of the words only the response has.
        concept_match: Weight of the words only matched through a synonym.
        unmatched_known: Weight of the words the document lacks but the task has.
        unmatched_unknown: Weight of the words the task lacks.
        cover: Weight of the matched share.
        focus: Weight of the most specific matched word's specificity.
        unmatched_focus: Weight of the most specific unmatched word's specificity.
        known: Weight of the share of question tokens the task knows.
        generic: Weight of the generic-record indicator.
        generic_focus: Weight of ``focus`` for generic records.
        bias: The logistic intercept.
        threshold: The probability a task-specific record (or pointer) needs for the question to be answered.
        join: The probability further task-specific records need to join an answered question.
        generic_threshold: The probability a generic record needs.
        candidates: How many of the ranker's best documents are considered.
        floor: Added to every word's specificity, so that a question of generic words only still has a share.
        score_cap: Ranker scores are clipped to ``[-score_cap, score_cap]`` (an exact trigger adds a large bonus).
    """

    score: float = 0.0
    gap: float = 0.0
    trigger_match: float = 0.0
    response_match: float = 0.0
    concept_match: float = 0.0
    unmatched_known: float = 0.0
    unmatched_unknown: float = 0.0
    cover: float = 0.0
    focus: float = 0.0
    unmatched_focus: float = 0.0
    known: float = 0.0
    generic: float = 0.0
    generic_focus: float = 0.0
    bias: float = 0.0
    threshold: float = 0.5
    join: float = 0.5
    generic_threshold: float = 0.5
    candidates: int = 5
    floor: float = 0.05
    score_cap: float = 15.0

    def __post_init__(self) -> None:
        for name in ("threshold", "join", "generic_threshold"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0):
                raise ArgumentError(f"{name} must be a probability in [0, 1], got {value!r}")
        if not isinstance(self.candidates, int) or self.candidates < 1:
            raise ArgumentError(f"candidates must be an int >= 1, got {self.candidates!r}")

    @classmethod
    def feature_names(cls) -> tuple[str, ...]:
        """Return the names of the features these weights multiply, in :meth:`Gate.features` column order."""
        return GATE_FEATURES

    def coefficients(self) -> np.ndarray:
        """Return the weights in :meth:`feature_names` order."""
        return np.array([getattr(self, name) for name in self.feature_names()], dtype=np.float64)

    def replace_coefficients(self, values: Sequence[float], bias: float) -> GateWeights:
        """Return a copy with new weights (in :meth:`feature_names` order) and bias, rounded to three decimals."""
        names = self.feature_names()
        kept = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in names}
        fitted = {name: round(float(v), 3) for name, v in zip(names, values, strict=True)}
        return type(self)(**{**kept, **fitted, "bias": round(float(bias), 3)})


#: Fitted on the labelled questions of the built-in tasks (see the module docstring).
DEFAULT_GATE = GateWeights(
    score=0.275,
    gap=-0.97,
    trigger_match=1.225,
    response_match=0.303,
    concept_match=1.598,
    unmatched_known=-0.076,
    unmatched_unknown=0.05,
    cover=1.632,
    focus=-0.443,
    unmatched_focus=-0.128,
    known=1.836,
    generic=-0.369,
    generic_focus=-0.473,
    bias=-4.007,
    threshold=0.4,
    join=0.05,
    generic_threshold=0.15,
)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


class Gate:
    """The answerability gate over one task level's documents (see the module docstring).

    Args:
        documents: The documents a ranker routes between.
        weights: The fitted weights (:data:`DEFAULT_GATE` when omitted).
        background: The background that gives words their specificity (:data:`DEFAULT_BACKGROUND` when omitted).

    Raises:
        ArgumentError: if the weights do not weigh exactly this gate's features.
    """

    #: The names of the columns :meth:`extra_features` adds after :data:`GATE_FEATURES`.
    extra_feature_names: tuple[str, ...] = ()

    def __init__(
        self,
        documents: Sequence[Document],
        weights: GateWeights | None = None,
        background: Background | None = None,
    ) -> None:
        self.weights = weights or DEFAULT_GATE
        if self.weights.feature_names() != GATE_FEATURES + self.extra_feature_names:
            raise ArgumentError(
                f"{type(self).__name__} weighs {len(GATE_FEATURES + self.extra_feature_names)} features; "
                f"{type(self.weights).__name__} has weights for {len(self.weights.feature_names())}"
            )
        self.background = background or DEFAULT_BACKGROUND
        self._coefficients = self.weights.coefficients()
        self._triggers = [frozenset(tokens(" ".join(d.triggers))) for d in documents]
        self._responses = [frozenset(tokens(routable_response(d))) for d in documents]
        self._known = frozenset().union(*self._triggers, *self._responses)
        self._generic = [not d.is_task_specific and d.kind != "pointer" for d in documents]
        self._routable = [bool(d.response.strip()) for d in documents]
        self._member = self.background.is_member(d.response for d in documents if d.is_task_specific)

    def question_words(self, question: str) -> QuestionWords:
        """Return the content words of ``question`` that the gate weighs."""
        return content_words(question)

    def _spec(self, stem: str) -> float:
        return self.background.specificity(stem, own=self._member and stem in self._known)

    def _weights(self, words: QuestionWords) -> list[tuple[float, float]]:
        return [(self._spec(stem), self._spec(concept) if concept else 0.0) for stem, concept in words]

    def features(
        self, words: QuestionWords, scores: np.ndarray, candidates: Sequence[int], known: float, question: str = ""
    ) -> np.ndarray:
        """Return the features of each candidate document: shape ``(len(candidates), len(weights.feature_names()))``.

        Args:
            words: The question's content words.
            scores: The ranker's score of every document.
            candidates: The documents to judge (indices into the documents).
            known: The share of the question's tokens that the task knows.
            question: The question itself (for gates with features beyond the words; see :meth:`extra_features`).
        """
        w = self.weights
        weights = self._weights(words)
        top = min(float(scores[candidates[0]]), w.score_cap) if len(candidates) else 0.0
        rows = []
        for i in candidates:
            score = max(min(float(scores[i]), w.score_cap), -w.score_cap)
            parts = self._parts(i, words, weights)
            generic = float(self._generic[i])
            rows.append([score, top - score, *parts, known, generic, generic * parts[6]])
        lexical = np.array(rows, dtype=np.float64).reshape(len(rows), len(GATE_FEATURES))
        return np.hstack([lexical, self.extra_features(question, candidates)])

    def extra_features(self, question: str, candidates: Sequence[int]) -> np.ndarray:
        """Return the features after :data:`GATE_FEATURES` of each candidate (none here; a subclass may add some)."""
        return np.zeros((len(candidates), 0))

    def _parts(self, i: int, words: QuestionWords, weights: Sequence[tuple[float, float]]) -> list[float]:
        """Return the word-match features of document ``i``: the five masses, cover, focus, unmatched focus."""
        triggers, response, floor = self._triggers[i], self._responses[i], self.weights.floor
        mass = [0.0] * 5
        focus = unmatched_focus = 0.0
        for (stem, concept), (spec, concept_spec) in zip(words, weights, strict=True):
            if stem in triggers or stem in response:
                mass[0 if stem in triggers else 1] += spec + floor
                focus = max(focus, spec)
            elif concept and (concept in triggers or concept in response):
                mass[2] += min(spec, concept_spec) + floor
            else:
                mass[3 if stem in self._known or concept in self._known else 4] += spec + floor
                unmatched_focus = max(unmatched_focus, spec)
        total = sum(mass)
        return [*mass, sum(mass[:3]) / total if total else 0.0, focus, unmatched_focus]

    def candidates(self, scores: np.ndarray) -> list[int]:
        """Return the ranker's best documents with a non-empty response, best first (ties by index)."""
        order = np.argsort(-scores, kind="stable").tolist()
        return [i for i in order if self._routable[i]][: self.weights.candidates]

    def probabilities(
        self, words: QuestionWords, scores: np.ndarray, candidates: Sequence[int], known: float, question: str = ""
    ) -> np.ndarray:
        """Return, per candidate, the probability that it answers the question."""
        if not candidates:
            return np.zeros(0)
        x = self.features(words, scores, candidates, known, question)
        return _sigmoid(x @ self._coefficients + self.weights.bias)

    def select(self, words: QuestionWords, scores: np.ndarray, known: float, question: str = "") -> list[int]:
        """Return the candidates that answer the question, best ranker score first (none without content words)."""
        if not words or not len(scores):
            return []
        candidates = self.candidates(scores)
        p = self.probabilities(words, scores, candidates, known, question)
        return decide(candidates, p, self._generic, self.weights)


def decide(
    candidates: Sequence[int], probabilities: np.ndarray, generic: Sequence[bool], weights: GateWeights
) -> list[int]:
    """Apply the reply rule of the module docstring to candidates and their probabilities."""
    p = probabilities.tolist()
    specific = [q for i, q in zip(candidates, p, strict=True) if not generic[i]]
    answered = bool(specific) and max(specific) >= weights.threshold
    chosen = []
    for i, q in zip(candidates, p, strict=True):
        if q >= weights.generic_threshold if generic[i] else (answered and q >= weights.join):
            chosen.append(i)
    return chosen
