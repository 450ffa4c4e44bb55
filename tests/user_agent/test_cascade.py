"""The default ``cascade`` router: when it asks the cross-encoder, how it combines the logits, pickling, errors."""

from __future__ import annotations

import pickle
from dataclasses import replace

import numpy as np
import pytest
from tiny_cross_encoder import needs_transformers, write_tiny

from icae_env.errors import ArgumentError, ModelWeightsMissing, TaskValidationError
from icae_env.registration import DEFAULT_ROUTER
from icae_env.tasks import load_task
from icae_env.user_agent import GroundedUserAgent, documents_for, make_router
from icae_env.user_agent.features.gate import DEFAULT_GATE
from icae_env.user_agent.features.text import tokens
from icae_env.user_agent.models.cross_encoder import PATH_VARIABLE, SHIPPED_PATH, CrossEncoder, _load, record_text
from icae_env.user_agent.routers.cascade import CASCADE, CascadeGate, CascadeRouter, CascadeWeights, combine, in_band
from icae_env.user_agent.routers.distilled import DISTILLED_GATE, DistilledRouter

QUESTIONS = [
    "what happens when two packages depend on each other?",
    "how should version conflicts be reported?",
    "what is the output format?",
    "are there performance requirements?",
    "Which coffee machine should the office buy?",
    "what does it print when a package is missing?",
    "what's the default behaviour for optional dependencies?",
    "how does the liveness probe work",
]


@pytest.fixture(scope="module")
def docs():
    return tuple(documents_for(load_task("builtin/dep-resolver").user_agent_data("L1")))


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    return write_tiny(tmp_path_factory.mktemp("ce") / "tiny.npz", seed=1)


@pytest.fixture()
def fitted(weights, monkeypatch):
    monkeypatch.setenv(PATH_VARIABLE, str(weights))
    return weights


def _gate_view(router: DistilledRouter, question: str) -> tuple[list[int], np.ndarray]:
    gate = router.gate
    words = gate.question_words(question)
    scores = router.scores(question)
    candidates = gate.candidates(scores) if words else []
    return candidates, gate.probabilities(words, scores, candidates, router.known_share(tokens(question)), question)


def test_it_is_the_default_ships_its_weights_and_names_missing_ones(docs, tmp_path, monkeypatch):
    monkeypatch.delenv(PATH_VARIABLE, raising=False)
    assert DEFAULT_ROUTER == "cascade"
    agent = GroundedUserAgent.from_task(load_task("builtin/dep-resolver"), level="L1")
    assert agent.router.name == "cascade" and agent.router.gate.weights_path == SHIPPED_PATH
    monkeypatch.setenv(PATH_VARIABLE, str(tmp_path / "absent.npz"))
    with pytest.raises(ModelWeightsMissing, match="absent.npz"):
        make_router("cascade", docs)
    with pytest.raises(ModelWeightsMissing):
        GroundedUserAgent.from_task(load_task("builtin/dep-resolver"), level="L1", router="cascade")
    (tmp_path / "corrupt.npz").write_bytes(b"PK\x03\x04 not really")
    monkeypatch.setenv(PATH_VARIABLE, str(tmp_path / "corrupt.npz"))
    with pytest.raises(TaskValidationError, match="corrupt.npz"):  # named when the router is built, not mid-episode
        make_router("cascade", docs)
    with pytest.raises(ArgumentError, match="VectorGateWeights"):  # a wrong gate is named before weights are sought
        CascadeRouter(docs, gate=DEFAULT_GATE)
    assert CascadeRouter(docs, gate=None).gate is None  # the ungated ranker needs no cross-encoder


@needs_transformers
def test_it_asks_the_cross_encoder_only_when_the_gate_is_unsure(docs, fitted):
    cascade, distilled = make_router("cascade", docs), DistilledRouter(docs)
    joined = DistilledRouter(docs, gate=replace(DISTILLED_GATE, join=CASCADE.join))
    assert isinstance(cascade, CascadeRouter) and isinstance(cascade.gate, CascadeGate)
    asked = 0
    for question in QUESTIONS + [t for d in docs if d.is_task_specific for t in d.triggers]:
        before = cascade.gate.calls
        routed = [m.index for m in cascade.route(question)]
        candidates, p = _gate_view(distilled, question)
        specific = [q for i, q in zip(candidates, p, strict=True) if not cascade.gate._generic[i]]
        unsure = bool(specific) and CASCADE.low <= max(specific) < CASCADE.high
        assert cascade.gate.calls - before == int(unsure), question
        if not unsure:  # the gate decides alone: the distilled router's reply, joined at the cascade's bar
            assert routed == [m.index for m in joined.route(question)], question
        asked += unsure
    assert asked > 0


@needs_transformers
def test_the_probabilities_combine_both_logits(docs, weights):
    """Re-checked candidates get sigmoid(a * cross logit + b * logit(gate p) + shift); generic ones keep the gate's."""
    model = CrossEncoder.load(weights)
    cascade = CascadeWeights(a=0.7, b=0.4, threshold=0.3, low=0.0, high=1.0)
    router = CascadeRouter(docs, cascade=cascade, cross_encoder=model)
    distilled = DistilledRouter(docs)
    shift = np.log(0.4 / 0.6) - np.log(0.3 / 0.7)
    checked = 0
    for question in QUESTIONS:
        candidates, gate_p = _gate_view(distilled, question)
        if not candidates:
            continue
        words, scores = router.gate.question_words(question), router.scores(question)
        p = router.gate.probabilities(words, scores, candidates, router.known_share(tokens(question)), question)
        generic = np.array([router.gate._generic[i] for i in candidates])
        assert np.array_equal(p[generic], gate_p[generic])
        specific = [i for i in candidates if not router.gate._generic[i]]
        logits = model.logits(question, [record_text(docs[i]) for i in specific])
        q = np.clip(gate_p[~generic], 1e-6, 1 - 1e-6)
        expected = 1 / (1 + np.exp(-(0.7 * logits + 0.4 * np.log(q / (1 - q)) + shift)))
        assert np.allclose(p[~generic], expected), question
        checked += 1
    assert checked >= 5


@needs_transformers
def test_a_pickled_router_loads_its_weights_file_again(docs, weights, tmp_path, monkeypatch):
    """A router built from a weights file pickles the file's path, not the model, and loads that file again."""
    own = tmp_path / "own.npz"
    own.write_bytes(weights.read_bytes())
    monkeypatch.setenv(PATH_VARIABLE, str(own))
    router = make_router("cascade", docs)
    before = [[m.index for m in router.route(q)] for q in QUESTIONS]
    assert router.gate.calls > 0  # some questions were re-checked by the cross-encoder
    blob = pickle.dumps(router)
    assert len(blob) < 2_000_000 and b"own.npz" in blob
    monkeypatch.setenv(PATH_VARIABLE, str(tmp_path / "elsewhere.npz"))
    _load.cache_clear()
    again = pickle.loads(blob)
    assert [[m.index for m in again.route(q)] for q in QUESTIONS] == before
    assert again.gate.calls - router.gate.calls == router.gate.calls  # the same questions were re-checked again
    own.unlink()
    _load.cache_clear()
    with pytest.raises(ModelWeightsMissing, match="own.npz"):
        pickle.loads(blob)


@needs_transformers
def test_a_given_model_is_pickled_with_the_router(docs, weights):
    router = CascadeRouter(docs, cross_encoder=CrossEncoder.load(weights))
    again = pickle.loads(pickle.dumps(router))
    assert again.gate.weights_path is None
    assert [[m.index for m in again.route(q)] for q in QUESTIONS] == [
        [m.index for m in router.route(q)] for q in QUESTIONS
    ]


def test_bad_cascade_constants_are_refused():
    with pytest.raises(ArgumentError, match="threshold"):
        CascadeWeights(a=0.5, b=0.5, threshold=1.0, low=0.1, high=0.6)
    with pytest.raises(ArgumentError, match="low"):
        CascadeWeights(a=0.5, b=0.5, threshold=0.2, low=0.7, high=0.6)
    with pytest.raises(ArgumentError, match="join"):
        CascadeWeights(a=0.5, b=0.5, threshold=0.2, low=0.1, high=0.6, join=0.0)


def test_the_reply_rule_joins_at_the_cascades_bar(docs):
    router = make_router("cascade", docs)
    assert router.gate.weights.join == CASCADE.join == 0.15 and DISTILLED_GATE.join == 0.05
    assert router.gate.weights.threshold == DISTILLED_GATE.threshold  # the rest of the gate's rule stands


def test_the_band_looks_at_task_specific_candidates_only():
    band = CascadeWeights(a=0.5, b=0.5, threshold=0.2, low=0.1, high=0.6)
    generic = np.array([True, False, False])
    assert in_band(np.array([0.9, 0.3, 0.05]), generic, band)  # a sure generic record does not count
    assert not in_band(np.array([0.3, 0.05, 0.02]), generic, band)  # the specific best is below the band
    assert not in_band(np.array([0.3, 0.6, 0.1]), generic, band)  # high is excluded...
    whole = CascadeWeights(a=0.5, b=0.5, threshold=0.2, low=0.0, high=1.0)
    assert in_band(np.array([0.3, 1.0, 0.1]), generic, whole)  # ...unless it is 1
    assert not in_band(np.array([0.3]), np.array([True]), whole)  # nothing task-specific: never asked


def test_combine_keeps_generic_probabilities_and_moves_the_threshold():
    cascade = CascadeWeights(a=1.0, b=1.0, threshold=0.2, low=0.0, high=1.0)
    gate_p = np.array([0.7, 0.2, 0.5])
    out = combine(gate_p, np.array([9.0, 0.0, 2.0]), np.array([True, False, False]), cascade, gate_threshold=0.4)
    assert out[0] == 0.7  # generic: the gate's, whatever the logit
    assert out[1] == pytest.approx(0.4)  # the combined threshold 0.2 lands on the gate's 0.4 at logit 0
    assert out[2] > 0.5
