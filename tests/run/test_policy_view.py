"""What a policy is given: what the agent sees (no task object, no hidden data); the solution only if privileged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from revision_packs import write_revision_pack

import icae_env
from icae_env.core import Solution
from icae_env.envs.state import Timing
from icae_env.revision import load_revision_pack
from icae_env.run import run_episode
from icae_env.run.trajectory import jsonable
from icae_env.tasks import TIERS, load_task


class Recording:
    """Records every reset call, then submits (or stops)."""

    name = "recording"

    def __init__(self, privileged: bool = False) -> None:
        self.privileged = privileged
        self.resets: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def reset(self, *args: Any, **kwargs: Any) -> None:
        self.resets.append((args, kwargs))

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        return {"tool": "submit"}


def _hidden_texts(task: Any, level: str) -> list[str]:
    """Every hidden string of a build task at ``level`` that is not also in its PRD (records, cases, golden)."""
    prd = task.prd(level)
    texts = [r.oracle_response for r in task.user_agent_data(level).hidden_constraints]
    texts += [c.expected_text for tier in ("native", "enhanced") for f in task.tests.tier(tier) for c in f.cases]
    texts += [
        p.read_text() for p in sorted(Path(task.golden_dir).rglob("*.py")) + sorted(Path(task.golden_dir).rglob("*.js"))
    ]
    return [t for t in texts if len(t.strip()) >= 12 and t not in prd]


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _given(policy: Recording) -> str:
    [(args, kwargs)] = policy.resets
    assert kwargs == {} and len(args) == 3, "reset(observation, info, seed) and nothing else"
    observation, info, seed = args
    assert isinstance(observation, dict) and isinstance(info, dict) and seed == 0
    objects = [
        v for v in _leaves([observation, info]) if not isinstance(v, (str, int, float, bool, type(None), Timing))
    ]
    assert objects == [], "only text, numbers and timings"
    return json.dumps(jsonable([observation, info]))


@pytest.mark.parametrize(
    ("env_id", "task"), [("icae/ProjectBuild-v0", "builtin/dep-resolver"), ("icae/Clarify-v0", "builtin/unidiff")]
)
def test_an_honest_policy_gets_what_the_agent_sees(env_id: str, task: str) -> None:
    env = icae_env.make(env_id, task=task)
    policy = Recording()
    try:
        result = run_episode(env, policy, seed=0)
    finally:
        env.close()
    assert result.error is None
    given = _given(policy)
    loaded = load_task(task)
    hidden = _hidden_texts(loaded, "L1")
    assert len(hidden) > 20 and [t[:40] for t in hidden if t in given] == []
    assert set(TIERS) <= set(loaded.available_tiers)


def test_a_revision_policy_never_sees_the_criteria(tmp_path: Path) -> None:
    pack = write_revision_pack(tmp_path)
    task = load_revision_pack(pack)
    env = icae_env.make("icae/Revision-v0", task=task)
    policy = Recording()
    try:
        run_episode(env, policy, seed=0)
    finally:
        env.close()
    given = _given(policy)
    assert [c.id for c in task.criteria if c.text in given] == []


def test_a_privileged_policy_is_handed_the_solution_and_only_that() -> None:
    env = icae_env.make("icae/ProjectBuild-v0", task="builtin/dep-resolver")
    policy = Recording(privileged=True)
    try:
        run_episode(env, policy, seed=0)
    finally:
        env.close()
    [(args, kwargs)] = policy.resets
    assert len(args) == 3 and set(kwargs) == {"solution"} and isinstance(kwargs["solution"], Solution)
    solution = kwargs["solution"]
    assert solution.questions and any(a["path"] == "rcb_tests/test.sh" for a in solution.actions if "path" in a)
