"""The ``llm`` router through ``icae_env.make`` with a real model (SmolLM2 on llama-cpp-python, no mock).

Asked for JSON alone, a 135M model replies with JSON of its own design, which the router counts as unusable and
answers with the fallback; with ``json_reply="schema"`` llama.cpp constrains the reply to the router's schema, so
every reply is usable. Either way every question gets an answer and nothing raises out of ``step``.
"""

from __future__ import annotations

import pytest
from local_model import needs_local_model

import icae_env

pytestmark = needs_local_model
QUESTIONS = ("How are dependency cycles reported?", "What is the output format?", "Which platforms matter?")


@pytest.mark.parametrize("json_reply", ["schema"])  # "object" gives SmolLM2's own JSON: 3 of 3 unusable, slowly
def test_every_question_is_answered_or_falls_back_and_is_counted(local_model, json_reply):
    options = {"base_url": local_model.base_url, "model": local_model.model, "json_reply": json_reply, "timeout": 600}
    env = icae_env.make("icae/Clarify-v0", task="builtin/dep-resolver", router="llm", router_options=options)
    try:
        env.reset(seed=0)
        fallbacks = 0
        for question in QUESTIONS:
            observation, _, _, truncated, info = env.step({"tool": "ask", "question": question})
            assert observation["output"].strip() and not truncated
            fallbacks += bool(info["fallback"])
        assert 0 <= info["router_errors"] <= fallbacks <= len(QUESTIONS)
        if json_reply == "schema":
            assert info["router_errors"] == 0, "a schema-constrained reply is always usable"
        print(f"SmolLM2 as router ({json_reply}): {len(QUESTIONS) - fallbacks} answered, {fallbacks} fallbacks "
              f"({info['router_errors']} unusable replies)")  # fmt: skip
    finally:
        env.close()
