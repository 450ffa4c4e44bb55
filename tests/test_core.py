"""The contract is enough to add a task kind: a toy kind defined here, registered with one row, runs everywhere.

The kind below is a few lines of data and an evaluate. Registered at import (module level), it gets an env that
passes ``check_env``, runs through the run layer serially and on Ray (whose workers apply the driver's run-time
registrations), and records trajectories that replay.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, ClassVar, Literal

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pydantic import BaseModel, ConfigDict

import icae_env
from icae_env.baselines.oracle_agent import OracleAgent
from icae_env.baselines.random_agent import RandomAgent
from icae_env.core import EvalContext, Score, Solution, Transcript, WeightedReward
from icae_env.errors import TaskNotFoundError, UnknownNameError
from icae_env.kinds import kind_for, make_kind
from icae_env.registration import EnvFamily, KindEntry, register_kind, runtime_rows
from icae_env.run import env_id_for, read_trajectory, replay, resolve_tasks, rollout, run_suite
from icae_env.sandbox.local import bwrap_available
from icae_env.tasks import HiddenConstraint, UserAgentData

ENV_ID = "test/Toy-v0"
SECRETS = {"greet": "hello, ada", "count": "7 apples"}


class ToyTask(BaseModel):
    """A toy task: write the user's hidden answer to answer.txt."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    secret: str
    language: str = "python"
    origin: str = "toy"

    @property
    def levels(self) -> dict[str, None]:
        return {"L1": None}

    def prd(self, level: str | None = None) -> str:
        return "Write answer.txt holding exactly what the user wants; ask them what that is."

    def user_agent_data(self, level: str | None = None) -> UserAgentData:
        record = HiddenConstraint(
            constraint_id="C001",
            trigger_keywords=("what should answer.txt hold", "what is the answer", "what goes in the file"),
            oracle_response=f"answer.txt must hold exactly: {self.secret}",
        )
        return UserAgentData(
            task_id=self.id,
            level="L1",
            hidden_constraints=(record,),
            context_pointers=(),
            golden_api_signature="",
            fallback_response="I can't say.",
        )


class ToyReward(WeightedReward):
    correct: float = 1.0
    task_coverage: float = 0.0


class ToyScore(Score):
    kind: Literal["toy"] = "toy"
    correct: bool = False

    def record(self) -> dict[str, Any]:
        return {"overall": float(self.correct), "task_coverage": self.components["task_coverage"]}


class ToyKind:
    name: ClassVar[str] = "toy"
    task_type: ClassVar[type] = ToyTask
    reward_type: ClassVar[type[WeightedReward]] = ToyReward
    score_type: ClassVar[type[Score]] = ToyScore

    def list_tasks(self) -> list[str]:
        return [f"toy/{name}" for name in sorted(SECRETS)]

    def owns(self, ref: str) -> bool:
        return ref.startswith("toy/")

    def load(self, ref: str | Path) -> ToyTask:
        name = str(ref).removeprefix("toy/")
        if name not in SECRETS:
            raise TaskNotFoundError(f"no toy task {ref!r}")
        return ToyTask(id=name, secret=SECRETS[name])

    def ref(self, task: ToyTask) -> str:
        return f"toy/{task.id}"

    def setup(self, task: ToyTask, box: Any) -> None:
        box.write_file("README", "answer.txt goes here\n")

    def intro(self, task: ToyTask, level: str, budget: int) -> str:
        return f"{task.prd(level)} You may ask {budget} questions; submit when done."

    def evaluate(
        self, task: ToyTask, level: str, snapshot: Path, transcript: Transcript, context: EvalContext
    ) -> Score:
        answer = snapshot / "answer.txt"
        correct = answer.is_file() and answer.read_text().strip() == task.secret
        stats = transcript.stats(task.user_agent_data(level))
        components = {"correct": float(correct), "task_coverage": stats.task_coverage / 100}
        return ToyScore(
            reward=context.reward.total(components), components=components, interaction=stats, correct=correct
        )

    def progress(self, task: ToyTask, level: str, snapshot: Path, context: EvalContext) -> float | None:
        return None

    def cheat(self, task: ToyTask, level: str) -> Solution:
        write = {"tool": "write_file", "path": "answer.txt", "content": task.secret + "\n"}
        return Solution(questions=("what is the answer",), actions=(write,))

    def hidden_paths(self, task: ToyTask) -> tuple[Path, ...]:
        return ()

    def close(self) -> None:
        pass


ENV = EnvFamily(ENV_ID, "icae_env.envs.workspace:WorkspaceEnv", {"kind": "toy", "task": "toy/greet", "budget": 2})
register_kind(KindEntry("toy", f"{__name__}:ToyKind", ENV_ID, suite="toy", env=ENV))
SANDBOX = {"sandbox_options": {"isolation": "bwrap"}} if bwrap_available() else {}


def test_the_row_registers_the_kind_and_its_env():
    assert ENV_ID in gymnasium.registry and kind_for("toy/count").name == "toy"
    assert resolve_tasks("toy") == ["toy/count", "toy/greet"] and env_id_for(["toy/greet"]) == ENV_ID
    assert [row.name for row in runtime_rows()] == ["toy"]  # what a Ray worker is handed
    with pytest.raises(UnknownNameError, match=r"unknown task kind 'tyo'.*did you mean 'toy'"):
        make_kind("tyo")
    with pytest.raises(ValueError, match="cannot run in one suite"):
        env_id_for(["toy/greet", "builtin/unidiff"])


def test_the_toy_env_passes_the_checker():
    env = gymnasium.make(ENV_ID, **SANDBOX)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)
    finally:
        env.close()


def test_serial_run_records_and_replays(tmp_path: Path):
    results = run_suite(OracleAgent, ["toy/greet", "toy/count"], out_dir=tmp_path, trajectories=True, progress=False)
    assert [(r.task, r.overall, r.reward, r.task_coverage, r.error) for r in results] == [
        ("greet", 1.0, 1.0, 1.0, None),
        ("count", 1.0, 1.0, 1.0, None),
    ]
    path = tmp_path / "trajectories" / "count-L1-0.jsonl"
    head = next(read_trajectory(path))
    assert (head["env_id"], head["kwargs"]["task"]) == (ENV_ID, "toy/greet")
    report = replay(path)
    assert report.ok and report.steps == 3  # ask, write, submit
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["task"] for line in lines] == ["greet", "count"]
    floor = run_suite(lambda: RandomAgent(2), ["toy/greet"], progress=False)
    assert [(r.overall, r.error) for r in floor] == [(0.0, None)]


def test_a_wrong_answer_scores_zero():
    env = icae_env.make(ENV_ID, task="toy/count", **SANDBOX)
    try:
        obs, _ = env.reset(seed=0)
        assert obs["output"].startswith("Write answer.txt") and obs["questions_left"] == 2
        reply, *_ = env.step({"tool": "ask", "question": "what is the answer?"})
        assert reply["output"] == "answer.txt must hold exactly: 7 apples"
        env.step({"tool": "write_file", "path": "answer.txt", "content": "8 apples"})
        _, reward, terminated, _, info = env.step({"tool": "submit"})
        assert terminated and reward == 0.0 and info["score"]["kind"] == "toy" and info["score"]["correct"] is False
    finally:
        env.close()


@pytest.mark.ray
def test_on_ray_the_workers_learn_the_kind_from_the_driver(ray_cluster: str, tmp_path: Path):
    pytest.importorskip("ray")
    here = str(Path(__file__).parent)  # the workers import this module by the kind's entry point
    report = rollout(
        OracleAgent,
        ["toy/greet", "toy/count"],
        num_workers=2,
        out_dir=tmp_path,
        trajectories=True,
        progress=False,
        num_cpus_per_worker=0.5,
        ray_init_kwargs={"runtime_env": {"env_vars": {"PYTHONPATH": here}}},
    )
    assert [(r.task, r.overall, r.error) for r in report.results] == [("greet", 1.0, None), ("count", 1.0, None)]
    assert report.infra_errors == [] and report.num_workers == 2
    assert replay(tmp_path / "trajectories" / "greet-L1-0.jsonl").ok
