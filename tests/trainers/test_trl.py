"""TRL's real GRPOTrainer over icae-env adapters, with a tiny local model (random weights, no model hub)."""

from __future__ import annotations

import gc
import inspect
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl", reason="the TRL adapter tests need the trl extra")

import pandas as pd  # noqa: E402  (installed with trl)
import psutil  # noqa: E402  (installed with trl, through accelerate)
import torch  # noqa: E402
from datasets import Dataset  # noqa: E402
from tiny_lm import scripted_model, tiny_model, tiny_tokenizer, tool_call  # noqa: E402
from transformers.utils import get_json_schema  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

import icae_env  # noqa: E402
from icae_env.errors import DependencyNotInstalled, UnknownNameError  # noqa: E402
from icae_env.sandbox.snapshot import TEMP_PREFIX  # noqa: E402
from icae_env.trainers.trl import (  # noqa: E402
    ADAPTERS,
    EPISODE_OVER,
    ClarifyTools,
    ProjectBuildTools,
    close_all,
    environment_factory,
    task_dataset,
    task_rows,
)

ROOT = Path(__file__).resolve().parents[2]
BUILD, CLARIFY = "icae/ProjectBuild-v0", "icae/Clarify-v0"
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """The model is tiny: a second thread (or a loaded machine's spinning OpenMP threads) only slows it down."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tokenizer():
    return tiny_tokenizer()


def _tools(adapter: type) -> dict[str, Any]:
    """The tools TRL finds on an adapter class (its public functions but reset and get_reward)."""
    members = inspect.getmembers(adapter, predicate=inspect.isfunction)
    return {name: f for name, f in members if not name.startswith("_") and name not in ("reset", "get_reward")}


def _rows(env_id: str, tasks: list[tuple[str, str]], seeds: range) -> Dataset:
    rows = [r for task, level in tasks for r in task_rows(env_id, [task], [level], seeds, f"{task} {level}: go.\n\n")]
    return Dataset.from_list(rows)


def _leftovers() -> tuple[list[Path], set[int]]:
    dirs = list(Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}{os.getpid()}-*"))
    return dirs, {p.pid for p in psutil.Process().children(recursive=True)}


def _train(model: Any, tokenizer: Any, dataset: Dataset, factory: Any, out: Path, steps: int = 2) -> pd.DataFrame:
    args = GRPOConfig(
        output_dir=str(out), per_device_train_batch_size=2, num_generations=2, max_completion_length=1024,
        max_steps=steps, learning_rate=1e-3, report_to=[], use_cpu=True, logging_steps=1, log_completions=True,
        num_completions_to_print=1, save_strategy="no", gradient_checkpointing=False, disable_tqdm=True, seed=0,
    )  # fmt: skip
    trainer = GRPOTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer,
                          environment_factory=factory)  # fmt: skip
    trainer.train()
    assert trainer.state.global_step == steps
    files = sorted((out / "completions").glob("completions_*.parquet"))
    assert len(files) == steps
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)


def _replay(env_id: str, prompt: Any, completion: Any) -> float:
    """Step a plain env through the completion's tool calls as TRL made them, finish it, and return its return."""
    adapter = ADAPTERS[env_id]
    task, level = prompt[-1]["content"].split(":")[0].split()
    env = icae_env.make(env_id)
    env.reset(seed=0, options={"task": task, "level": level})
    total, done = 0.0, False
    for message in completion:
        for call in message.get("tool_calls") if message.get("tool_calls") is not None else []:
            name, arguments = call["function"]["name"], call["function"]["arguments"] or {}
            arguments = {k: v for k, v in arguments.items() if v is not None}  # parquet fills absent keys with None
            try:  # TRL answers an unknown tool or bad arguments itself; the env never sees the call
                inspect.signature(_tools(adapter)[name]).bind(None, **arguments)
            except (KeyError, TypeError):
                continue
            if not done:
                _, reward, terminated, truncated, _ = env.step({"tool": name, **arguments})
                total, done = total + reward, terminated or truncated
    if not done:
        total += env.step(dict(adapter.finish))[1]
    env.close()
    return total


def _assert_rewards_replay(env_id: str, frame: pd.DataFrame) -> None:
    column = ADAPTERS[env_id].__name__
    replayed = [_replay(env_id, p, c) for p, c in zip(frame["prompt"], frame["completion"], strict=True)]
    assert frame[column].tolist() == pytest.approx(replayed, abs=1e-6)
    assert len(set(replayed)) > 1, "the scripts must give different rewards"


# -- the adapters without a trainer -------------------------------------------------------------------------
def test_tools_are_the_envs_actions_with_schemas():
    assert set(_tools(ProjectBuildTools)) == {"bash", "write_file", "str_replace", "view", "ask", "submit"}
    assert set(_tools(ClarifyTools)) == {"ask", "stop"}
    schemas = {name: get_json_schema(f)["function"] for name, f in _tools(ProjectBuildTools).items()}
    assert schemas["bash"]["parameters"]["required"] == ["command"]
    assert schemas["str_replace"]["parameters"]["required"] == ["path", "old", "new"]
    assert schemas["view"]["parameters"]["properties"]["range"]["items"] == {"type": "integer"}
    assert "clarification question" in schemas["ask"]["description"]


def test_an_adapter_episode_is_the_envs_episode():
    tools = environment_factory(BUILD)()
    [row] = task_rows(BUILD, ["builtin/unidiff"], ["L2"], [3])
    first = tools.reset(**row)
    assert first.startswith(str(icae_env.load_task("builtin/unidiff").prd("L2"))[:40])
    assert "Wrote 3" in tools.write_file("a.txt", "hi\n") and tools.bash("cat a.txt").startswith("hi")
    reply = tools.ask("How much context is shown around a change?")  # a task-specific record (C004) answers it
    assert tools.info["counters"]["ask"] == 1 and tools.info["recovered"]
    reward = tools.get_reward()  # no submit: get_reward submits
    assert tools.auto_finished and tools.actions[-1] == {"tool": "submit"} and tools.info["score"] is not None
    assert tools.submit() == EPISODE_OVER and tools.reward == reward > 0
    env = icae_env.make(BUILD)
    env.reset(seed=3, options={"task": "builtin/unidiff", "level": "L2"})
    outputs = [env.step(action)[0]["output"] for action in tools.actions[:-1]]
    assert outputs[-1] == reply and env.step({"tool": "submit"})[1] == reward
    env.close()


def test_clarify_adapter_rewards_are_the_envs_return():
    tools = ClarifyTools(budget=2)
    prd = tools.reset(task="builtin/dep-resolver", level="L1", seed=0, prompt=[])
    assert prd.startswith("## Product Requirement")
    tools.ask("how are cycles reported?")
    tools.ask("how are cycles reported?")  # the budget's last question ends the episode
    assert tools.done and tools.ask("more?") == EPISODE_OVER
    assert tools.get_reward() == pytest.approx(tools.info["task_coverage"] - 2 * 0.02) and not tools.auto_finished


def test_close_all_and_garbage_collection_end_the_sandboxes():
    before = _leftovers()[1]
    first, second = ProjectBuildTools(), ProjectBuildTools()
    for tools in (first, second):
        tools.reset(task="builtin/unidiff")
    assert len(_leftovers()[0]) == 2 and _leftovers()[1] - before
    assert close_all() >= 2 and _leftovers() == ([], before)
    first.reset(task="builtin/unidiff")
    del first
    gc.collect()
    assert _leftovers() == ([], before)


def test_bad_arguments_and_missing_trl(monkeypatch):
    with pytest.raises(UnknownNameError, match="icae/Revision-v0"):
        environment_factory("icae/Revision-v0")
    with pytest.raises(UnknownNameError):
        task_rows("icae/Nope-v0")
    with pytest.raises(ValueError, match="level"):
        task_rows(BUILD, ["builtin/unidiff"], ["L9"])
    assert len(task_dataset(CLARIFY, None, ["L1", "L2"], range(2))) == 12 * 2 * 2
    monkeypatch.setitem(sys.modules, "trl", None)
    with pytest.raises(DependencyNotInstalled, match=r'pip install "icae-env\[trl\]"'):
        environment_factory(BUILD)
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(DependencyNotInstalled, match="datasets is not installed"):
        task_dataset(BUILD)


# -- GRPO runs -----------------------------------------------------------------------------------------------
BUILD_SCRIPTS = [
    [tool_call("ask", question="What should the output look like?"), tool_call("submit")],
    [
        tool_call("write_file", path="rcb_tests/test.sh", content="echo hi\n"),
        tool_call("bash", command="ls -R"),
        "Done.",
    ],
    ["I will deliver nothing."],
    [tool_call("ask", question="How are errors reported?"), tool_call("ask", question="What are the limits?")],
]
CLARIFY_SCRIPTS = [
    [tool_call("ask", question="What should the output look like?"), tool_call("stop")],
    [tool_call("ask", question="How are errors reported?"), tool_call("ask", question="What are the limits?")],
    ["No questions."],
    [tool_call("ask", q="typo in the argument"), tool_call("bogus"), tool_call("ask", question="Which formats?")],
]


def test_grpo_over_project_build_rows(tokenizer, tmp_path):
    before = _leftovers()[1]
    model = scripted_model(tokenizer, BUILD_SCRIPTS)
    dataset = _rows(BUILD, [("builtin/unidiff", "L1"), ("builtin/cron-next", "L2")], range(2))
    frame = _train(model, tokenizer, dataset, environment_factory(BUILD), tmp_path)
    assert len(frame) == 4
    _assert_rewards_replay(BUILD, frame)
    dirs, processes = _leftovers()
    assert dirs == [] and processes - before == set()


def test_grpo_over_clarify_rows(tokenizer, tmp_path):
    model = scripted_model(tokenizer, CLARIFY_SCRIPTS)
    dataset = _rows(CLARIFY, [("builtin/dep-resolver", "L1"), ("builtin/unidiff", "L3")], range(2))
    frame = _train(model, tokenizer, dataset, environment_factory(CLARIFY, budget=4), tmp_path)
    _assert_rewards_replay(CLARIFY, frame)
    assert 0.0 in frame["ClarifyTools"].tolist()  # "No questions.": no tool call, stopped by get_reward


class RecordingBuild(ProjectBuildTools):
    """Records every finished episode (its actions and last info) as TRL scores it."""

    episodes: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []

    def get_reward(self) -> float:
        reward = super().get_reward()
        type(self).episodes.append((list(self.actions), self.info))
        return reward


@pytest.mark.slow
def test_a_model_that_asks_then_submits_reaches_the_env(tokenizer, tmp_path):
    script = [tool_call("ask", question="What should the output look like?"), tool_call("submit")]
    dataset = _rows(BUILD, [("builtin/unidiff", "L1")], range(2))
    frame = _train(scripted_model(tokenizer, [script]), tokenizer, dataset, RecordingBuild, tmp_path, steps=3)
    assert len(RecordingBuild.episodes) == 6
    for actions, info in RecordingBuild.episodes:
        assert actions == [{"tool": "ask", "question": "What should the output look like?"}, {"tool": "submit"}]
        assert info["counters"]["ask"] == 1 and info["counters"]["submit"] == 1 and info["counters"]["steps"] == 2
        assert info["score"]["components"]["task_coverage"] > 0
    assert frame["RecordingBuild"].min() > 0 and _leftovers()[0] == []


def test_example_trains_a_saved_model(tokenizer, tmp_path):
    model_dir = tmp_path / "tiny"
    tiny_model(tokenizer).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    command = [sys.executable, "examples/train_trl.py", "--model", str(model_dir), "--env", BUILD]
    command += [
        "--tasks",
        "builtin/unidiff",
        "--steps",
        "2",
        "--max-completion-length",
        "64",
        "--out",
        str(tmp_path / "run"),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}  # this checkout's icae_env
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "2 GRPO steps" in result.stdout and (tmp_path / "run" / "model" / "config.json").is_file()
