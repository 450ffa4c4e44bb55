"""The ``distilled`` router (the ``cascade`` router's first stage): encoder views, weights checks, pickling, fit."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from benchmarks.router_fit.fits import fit_default_router
from icae_env.errors import ArgumentError
from icae_env.registration import DEFAULT_ROUTER
from icae_env.tasks import list_tasks, load_task
from icae_env.user_agent import GroundedUserAgent, documents_for, make_router
from icae_env.user_agent.features.background import DEFAULT_BACKGROUND
from icae_env.user_agent.features.gate import DEFAULT_GATE
from icae_env.user_agent.models.static_encoder import StaticEncoder, default_encoder
from icae_env.user_agent.routers.distilled import (
    DISTILLED_GATE,
    DISTILLED_WEIGHTS,
    ENCODER_VIEWS,
    DistilledRouter,
    DistilledWeights,
    EncodedDocuments,
)
from icae_env.user_agent.routers.lexical import COEFFICIENTS, LexicalRouter

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"


@pytest.fixture(scope="module")
def docs():
    return documents_for(load_task("builtin/dep-resolver").user_agent_data("L1"))


def test_it_is_the_default_routers_first_stage(docs):
    assert DEFAULT_ROUTER == "cascade"
    assert isinstance(make_router(DEFAULT_ROUTER, tuple(docs)), DistilledRouter)  # the cascade is a distilled router
    agent = GroundedUserAgent.from_task(load_task("builtin/dep-resolver"), level="L1", router="distilled")
    assert agent.router.name == "distilled"


def test_the_design_ends_with_the_encoder_cosines(docs):
    router = DistilledRouter(docs)
    question = "what happens when two packages depend on each other?"
    design = router.design(question)
    assert design.shape == (len(docs), len(COEFFICIENTS) + len(ENCODER_VIEWS))
    cosines = EncodedDocuments(docs).design(question)
    assert np.array_equal(design[:, len(COEFFICIENTS) :], cosines)
    vector = default_encoder().encode(question)
    responses = [d.response for d in docs]
    assert cosines[0, 2] == pytest.approx(default_encoder().encode(responses[0][:1000]) @ vector)
    assert np.all(cosines[:, 0] >= cosines[:, 1] - 1e-12)  # the nearest trigger is at least the mean


def test_weights_for_other_views_are_refused(docs):
    with pytest.raises(ArgumentError, match="weighs the views"):
        LexicalRouter(docs, weights=DISTILLED_WEIGHTS)
    with pytest.raises(ArgumentError, match="weighs the views"):
        DistilledRouter(docs, weights=LexicalRouter.default_weights)
    with pytest.raises(ArgumentError, match="features"):
        DistilledRouter(docs, gate=DEFAULT_GATE)


def test_a_pickled_router_leaves_the_shipped_encoder_behind_and_routes_the_same(docs):
    router = DistilledRouter(docs)
    questions = ["how are cycles reported?", "what is the request format?", "tell me a joke"]
    before = [router.route(q) for q in questions]
    data = pickle.dumps(router)
    assert len(data) < len(pickle.dumps(default_encoder().vectors)) / 4
    again = pickle.loads(data)
    assert [again.route(q) for q in questions] == before
    assert again.encoded.encoder is default_encoder()


def test_a_router_with_its_own_encoder_pickles_it(docs):
    shipped = default_encoder()
    mine = StaticEncoder(shipped.vocabulary, shipped.vectors * 2, shipped.projection)  # same directions
    router = DistilledRouter(docs, encoder=mine)
    again = pickle.loads(pickle.dumps(router))
    assert again.encoded.encoder is not shipped and again.encoded.encoder.vocabulary == shipped.vocabulary
    question = "how are cycles reported?"
    assert np.allclose(again.design(question), DistilledRouter(docs).design(question))


def test_the_shipped_constants_are_the_builtin_fit():
    """Ranker weights and gate are what the documented fit gives on the built-in tasks (no hand tuning)."""
    assert len(list_tasks()) == 12
    fit = fit_default_router(str(DATA / "router_eval_builtin.jsonl"), router_class=DistilledRouter)
    assert isinstance(fit.weights, DistilledWeights)
    assert fit.weights == DISTILLED_WEIGHTS and fit.gate == DISTILLED_GATE and fit.background == DEFAULT_BACKGROUND
