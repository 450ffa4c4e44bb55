"""The first observation of every ``build`` task states the delivery contract once, at every level."""

from __future__ import annotations

import re

import pytest

import icae_env
from icae_env.kinds.build import DELIVERY_BY_PRD, BuildKind, delivery_contract
from icae_env.tasks import load_task

LEVELS = ("L1", "L2", "L3", "ground")
#: What the agent must be told, wherever it is stated (the contract, or the PRD's own protocol section).
CONTRACT = (
    "rcb_tests/test.sh",
    "bash rcb_tests/test.sh --cases-dir <",
    "rcb_tests/stdout/<",
    "@<i>.txt",
    "public_test_cases",
    "test_cases (Native)",
    "enhanced_test_cases (Enhanced)",
    "rcb_tests/public_test_cases/<stem>.json",
)


def _first_observation(task: str, level: str) -> str:
    env = icae_env.make("icae/ProjectBuild-v0", task=task, level=level, router="lexical")
    try:
        obs, _ = env.reset(seed=0)
        return str(obs["output"])
    finally:
        env.close()


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("task", ["builtin/unidiff", "builtin/config-lint", "gen/csv-validator/train/0"])
def test_the_first_observation_states_the_contract_once(task: str, level: str) -> None:
    text = _first_observation(task, level)
    missing = [part for part in CONTRACT if part not in text]
    assert not missing, (missing, text[-2500:])
    assert text.count("Delivery protocol (mandatory)") == 1
    assert len(re.findall(r"rcb_tests/stdout/<[a-z-]+>/", text)) == 1  # the output layout is stated once
    assert "as the PRD describes;" not in text  # the old L1 promise no L1 PRD kept


@pytest.mark.parametrize("level", ["L1", "L2"])
def test_at_l1_and_l2_the_public_cases_are_asked_for_and_the_harness_records_stay(level: str) -> None:
    task = load_task("builtin/unidiff")
    text = BuildKind().intro(task, level, 16)
    assert "ask the user for them" in text
    ids = {c.constraint_id for c in task.user_agent_data(level).hidden_constraints}
    assert {"HARNESS001", "HARNESS002", "HARNESS003"} <= ids  # still askable, as in ICAE
    agent = icae_env.make("icae/Clarify-v0", task="builtin/unidiff", level=level, router="lexical")
    try:
        agent.reset(seed=0)
        _, _, _, _, info = agent.step("how should test.sh work")
    finally:
        agent.close()
    assert "HARNESS002" in info["constraint_ids"]


def test_a_prd_that_states_the_protocol_gets_the_short_form() -> None:
    task = load_task("builtin/config-lint")
    assert "rcb_tests/stdout/" in task.prd("ground")
    contract = delivery_contract(task, "ground")
    assert contract.startswith(DELIVERY_BY_PRD.split("\n", 2)[0] + "\n") and "rcb_tests/stdout/" not in contract
    assert "the PRD shows them" in contract
    assert "rcb_tests/stdout/" in delivery_contract(task, "L1")


def test_icae_sample_tasks_state_the_contract(icae_sample) -> None:
    kind = BuildKind()
    for level in ("L1", "L2", "L3"):
        task = kind.load(f"icae:{icae_sample}#realcode@001")
        text = kind.intro(task, level, 16)
        assert all(part in text for part in CONTRACT[:3] + CONTRACT[5:]), (level, text[-2000:])
        assert text.count("Delivery protocol (mandatory)") == 1
