"""Demonstrations for supervised fine-tuning: baseline episodes as chat JSONL with tool calls (``icae-env export-sft``).

Each line is one episode, ``{"messages": [...], "tools": [...]}``, the conversational form TRL's ``SFTTrainer``
reads: the user message is the TRL adapter's instruction followed by the env's first observation (the prompt GRPO
shows, :data:`icae_env.trainers.trl.INSTRUCTIONS`), then per action an assistant message with one tool call and a
``tool`` message with the env's reply. The tools are the TRL adapter's (:data:`icae_env.trainers.trl.ADAPTERS`), as
transformers describes them to the model, so SFT and GRPO show the same tools. The messages are exactly the agent's
transcript: what it did and what the env returned; the oracle is handed the task's privileged solution (the
questions that reveal the records; on ProjectBuild-v0 also the golden files, which it writes), and nothing of it
appears but through its own actions. No record, hidden test or golden file is written otherwise.

Tasks: by default the first ``count`` certified tasks of the train split of every family that is not held out.
Built-in tasks, the ICAE sample, other splits and held-out families are evaluation tasks: refused unless
``allow_eval=True``.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import icae_env
from icae_env.envs.clarify import STOP
from icae_env.errors import ArgumentError, check_int
from icae_env.families import TaskRejected, family_names, generate, get_family, parse_name, task_name
from icae_env.trainers.trl import INSTRUCTIONS, _adapter, _require

__all__ = ["Policy", "demonstration", "eval_reason", "export_sft", "training_tasks", "tool_definitions"]

#: A run-layer policy (``reset``/``act``; privileged ones take ``solution=``), e.g. ``baselines.OracleAgent()``.
Policy = Any


def eval_reason(task: str) -> str | None:
    """Why ``task`` is an evaluation task (a built-in, ICAE or held-out task, or not a train split), else None."""
    if not task.startswith("gen/"):
        return f"{task} is not a generated training task (built-in and ICAE tasks are for evaluation)"
    family, split, _, _ = parse_name(task)
    if get_family(family).held_out:
        return f"{task} belongs to the held-out family {family}"
    if split != "train":
        return f"{task} is from the {split} split, not train"
    return None


def training_tasks(families: Sequence[str] | None = None, count: int = 10) -> list[str]:
    """The first ``count`` certified train-split tasks of each family (default: every family not held out).

    Raises:
        ArgumentError: for a held-out family.
        UnknownNameError: for an unknown family.
    """
    check_int("count", count, 0)
    chosen = [f for f in family_names() if not get_family(f).held_out] if families is None else list(families)
    names: list[str] = []
    for family in chosen:
        if get_family(family).held_out:
            raise ArgumentError(f"{family} is a held-out family; its tasks are for evaluation")
        index, found = 0, 0
        while found < count:
            try:
                generate(family, "train", index)
                names.append(task_name(family, "train", index))
                found += 1
            except TaskRejected:
                pass
            index += 1
    return names


def tool_definitions(env_id: str) -> list[dict[str, Any]]:
    """The TRL adapter's tools as transformers shows them to the model (``get_json_schema`` of each method)."""
    transformers_utils = _require("transformers.utils")
    adapter = _adapter(env_id)
    methods = inspect.getmembers(adapter, predicate=inspect.isfunction)
    names = sorted(n for n, _ in methods if not n.startswith("_") and n not in ("reset", "get_reward"))
    return [transformers_utils.get_json_schema(getattr(adapter, name)) for name in names]


def _action(env_id: str, action: Any) -> dict[str, Any]:
    """The agent's action as an adapter tool call (a question text is ``ask``; stop and submit end the episode)."""
    finish = dict(_adapter(env_id).finish)
    if isinstance(action, str):
        return finish if action.strip() == STOP else {"tool": "ask", "question": action}
    if action.get("tool") in ("submit", "stop"):
        return finish
    return dict(action)


def demonstration(env_id: str, policy: Policy, task: str, level: str = "L1", seed: int = 0) -> dict[str, Any]:
    """Play one episode of ``policy`` and return it as a chat example (see the module), with its return.

    Args:
        env_id: ``icae/Clarify-v0`` or ``icae/ProjectBuild-v0``.
        policy: The agent (the run layer's protocol: the baselines' agents); a question text is an ``ask``.
        task: The task name.
        level: The level.
        seed: The episode's seed.

    Returns:
        ``{"messages", "tools", "task", "level", "return"}``.
    """
    env = icae_env.make(env_id)
    try:
        observation, info = env.reset(seed=seed, options={"task": task, "level": level})
        if getattr(policy, "privileged", False):
            solution = env.unwrapped.cheat()  # type: ignore[attr-defined]
            if env_id == "icae/Clarify-v0":  # Clarify-v0 takes questions only: no files to write
                solution = solution.model_copy(update={"actions": ()})
            policy.reset(observation, info, seed, solution=solution)
        else:
            policy.reset(observation, info, seed)
        messages: list[dict[str, Any]] = [{"role": "user", "content": INSTRUCTIONS[env_id] + observation["output"]}]
        total, done = 0.0, False
        while not done:
            action = _action(env_id, policy.act(observation, info))
            tool = action.pop("tool")
            call = {"type": "function", "function": {"name": tool, "arguments": action}}
            observation, reward, terminated, truncated, info = env.step({"tool": tool, **action})
            messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
            messages.append({"role": "tool", "name": tool, "content": str(observation["output"])})
            total, done = total + float(reward), bool(terminated or truncated)
    finally:
        env.close()
    tools = tool_definitions(env_id)
    return {"messages": messages, "tools": tools, "task": task, "level": level, "return": total}


def _episodes(
    env_id: str, agents: Mapping[str, Callable[[], Policy]], tasks: Sequence[str], levels: Sequence[str]
) -> Iterator[dict[str, Any]]:
    for task in tasks:
        for level in levels:
            for make_policy in agents.values():
                yield demonstration(env_id, make_policy(), task, level)


def export_sft(
    out: str | Path,
    env_id: str,
    agents: Mapping[str, Callable[[], Policy]],
    tasks: Sequence[str] | None = None,
    levels: Sequence[str] = ("L1",),
    allow_eval: bool = False,
) -> int:
    """Write the demonstrations of ``agents`` on ``tasks`` x ``levels`` to the JSONL file ``out``; return the count.

    Each line is ``{"messages", "tools"}`` (the metadata, return included, stays out of the line: SFTTrainer
    reads every column).

    Args:
        out: The JSONL file (its folder is created).
        env_id: ``icae/Clarify-v0`` or ``icae/ProjectBuild-v0``.
        agents: Agent name -> a function returning a fresh policy (``icae-env export-sft`` maps the baselines).
        tasks: Task names (default: :func:`training_tasks`).
        levels: Levels.
        allow_eval: Allow evaluation tasks (built-in, ICAE, held-out families, other splits).

    Raises:
        ArgumentError: for an evaluation task without ``allow_eval``.
    """
    _adapter(env_id)
    chosen = training_tasks() if tasks is None else list(tasks)
    refused = [reason for reason in map(eval_reason, chosen) if reason is not None]
    if refused and not allow_eval:
        raise ArgumentError(f"{refused[0]}; pass allow_eval (--allow-eval-tasks) to export evaluation tasks")
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        for example in _episodes(env_id, agents, chosen, levels):
            handle.write(json.dumps({"messages": example["messages"], "tools": example["tools"]}) + "\n")
            written += 1
    return written
