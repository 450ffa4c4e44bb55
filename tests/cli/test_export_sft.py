"""``icae-env export-sft``: demonstrations from training tasks only, exactly the agent's transcript."""

from __future__ import annotations

import json

import pytest

import icae_env
from icae_env.cli import main
from icae_env.families import family_names, get_family

TASK = "gen/config-checker/train/0"


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--tasks", "builtin/unidiff"], "not a generated training task"),
        (["--tasks", "gen/config-checker/test/0"], "test split"),
        (["--families", "log-summary"], "held-out family"),
        (["--agents", "oracle,nobody"], "--agents takes"),
    ],
)
def test_evaluation_tasks_and_bad_agents_are_refused(tmp_path, capsys, arguments, message):
    out = tmp_path / "demos.jsonl"
    assert main(["export-sft", "--out", str(out), "--count", "1", *arguments]) == 2
    assert message in capsys.readouterr().err and not out.exists()


@pytest.mark.slow  # generates and certifies a task of every training family (about 2 minutes)
def test_default_tasks_are_the_train_split_of_families_not_held_out():
    from icae_env.trainers.demonstrations import training_tasks

    names = training_tasks(count=1)
    held = {f for f in family_names() if get_family(f).held_out}
    assert held and len(names) == len(family_names()) - len(held)
    assert all(n.startswith("gen/") and "/train/" in n and n.split("/")[1] not in held for n in names)


def test_an_exported_episode_is_the_agents_transcript(tmp_path):
    out = tmp_path / "demos.jsonl"
    assert main(["export-sft", "--out", str(out), "--tasks", TASK]) == 0
    oracle, heuristic = _lines(out)
    for example in (oracle, heuristic):
        assert set(example) == {"messages", "tools"}
        assert {t["function"]["name"] for t in example["tools"]} == {"ask", "stop"}
        env = icae_env.make("icae/Clarify-v0")
        observation, _ = env.reset(seed=0, options={"task": TASK, "level": "L1"})
        first, *turns = example["messages"]
        assert first["role"] == "user" and first["content"].endswith(observation["output"])
        for call, reply in zip(turns[::2], turns[1::2], strict=True):  # replay: the env returns the same replies
            [tool_call] = call["tool_calls"]
            name, arguments = tool_call["function"]["name"], tool_call["function"]["arguments"]
            assert call["role"] == "assistant" and reply == {"role": "tool", "name": name, "content": reply["content"]}
            assert env.step({"tool": name, **arguments})[0]["output"] == reply["content"]
        assert turns[-2]["tool_calls"][0]["function"]["name"] == "stop" or len(turns) // 2 == 16
        env.close()
    assert oracle["messages"][1] != heuristic["messages"][1]


def test_evaluation_tasks_with_the_flag(tmp_path):
    out = tmp_path / "demos.jsonl"
    command = ["export-sft", "--out", str(out), "--tasks", "builtin/dep-resolver", "--agents", "heuristic-clarifier"]
    assert main([*command, "--allow-eval-tasks"]) == 0 and len(_lines(out)) == 1
