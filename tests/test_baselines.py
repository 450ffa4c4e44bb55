"""Baselines: each script runs end to end as a subprocess; the oracle reaches 1.0 and random 0 on every task."""

import subprocess
import sys
from pathlib import Path

import pytest

from icae_env.baselines.oracle_agent import OracleAgent
from icae_env.baselines.random_agent import RandomAgent
from icae_env.families import family_names, get_family
from icae_env.kinds.build import BuildKind
from icae_env.registration import DEFAULT_ROUTER
from icae_env.run import run_suite
from icae_env.tasks import list_tasks, load_task
from icae_env.user_agent.grounded import user_agent_for

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("script", "overall"), [("oracle_agent.py", "100.0"), ("random_agent.py", "0.0")])
def test_script_runs(script, overall, tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "baselines" / script), "--tasks", "builtin/dep-resolver", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("dep-resolver"))
    assert row.split()[2] == overall
    assert (tmp_path / "results.jsonl").is_file() and (tmp_path / "summary.md").is_file()


@pytest.mark.slow
def test_oracle_scores_one_everywhere_and_random_zero():
    """Through env.step, every built-in task: the oracle scores 1.0 and recovers every task-specific record, random 0.

    The delivery (the golden) is the same at every level, so it is scored through the env at L1; at L2 the oracle's
    questions are asked of the level's User Agent, as the env asks them, and must recover every record.
    """
    tasks = list_tasks()
    oracle = run_suite(OracleAgent, tasks, ("L1",), progress=False)
    assert [(r.task, r.level, r.overall) for r in oracle if r.overall != 1.0 or r.error] == []
    assert all(r.task_coverage == 1.0 for r in oracle)
    kind = BuildKind()
    for name in tasks:
        task = load_task(name)
        agent = user_agent_for(task.user_agent_data("L2"), 16, DEFAULT_ROUTER, 0)
        for question in kind.cheat(task, "L2").questions:
            agent.ask(question)
        assert agent.stats().task_coverage == 100.0, name
    random = run_suite(lambda: RandomAgent(steps=5), tasks, ("L1",), progress=False)
    assert [(r.task, r.overall) for r in random if r.overall != 0.0 or r.error] == []


@pytest.mark.slow
def test_oracle_scores_one_and_random_zero_on_a_generated_task_of_every_family():
    tasks = [f"gen/{f}/{'test' if get_family(f).held_out else 'train'}/0" for f in family_names()]
    oracle = run_suite(OracleAgent, tasks, ("L1",), progress=False)
    assert [(r.task, r.overall) for r in oracle if r.overall != 1.0 or r.error] == []
    assert all(r.task_coverage == 1.0 for r in oracle)
    random = run_suite(lambda: RandomAgent(steps=5), tasks, ("L1",), progress=False)
    assert [(r.task, r.overall) for r in random if r.overall != 0.0 or r.error] == []


def test_random_agent_is_seeded():
    first, second = RandomAgent(3), RandomAgent(3)
    first.reset({}, {}, 7)
    second.reset({}, {}, 7)
    assert [first.act({}, {}) for _ in range(4)] == [second.act({}, {}) for _ in range(4)]
    with pytest.raises(ValueError, match="steps must be >= 0, got -1"):
        RandomAgent(-1)
