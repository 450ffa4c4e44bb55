"""The LLM baseline with a real model: SmolLM2-135M-Instruct on llama-cpp-python's server (no mock of the model).

Two built-in tasks run to a scored end with no ERROR episode, on native tool calls (at least 90% of the replies
become actions) and on text actions (the parse rate is printed); a context smaller than the first prompt ends the
episode truncated and scored (a real endpoint's context-length error, never a lost workspace).
"""

from __future__ import annotations

import json
from pathlib import Path

from local_model import needs_local_model

from icae_env.baselines import llm_agent

pytestmark = needs_local_model
TASKS = ["builtin/unidiff", "builtin/cron-next"]
STEPS = 4


def _run(
    server, out: Path, native: bool, context: int = 8192, steps: int = STEPS, max_tokens: int = 1024, tasks=TASKS
) -> tuple[int, list[dict], list[dict]]:
    args = llm_agent.Args(
        base_url=server.base_url, model=server.model, max_steps=steps, max_tokens=max_tokens, native_tools=native,
        out=str(out), context_length=context, progress=False, retries=0,
    )  # fmt: skip
    status = llm_agent.run(args, tasks=tasks, seeds=[0])
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    steps = [
        json.loads(line)
        for path in sorted((out / "trajectories").glob("*.jsonl"))
        for line in path.read_text().splitlines()
        if json.loads(line)["type"] == "step"
    ]
    return status, results, steps


def _parsed(steps: list[dict]) -> float:
    """The share of replies that became an action (a tool that then fails, say a str_replace miss, counts)."""
    return sum(s["info"].get("tool") != "invalid" for s in steps) / len(steps)


def test_native_tool_calls_become_actions_and_every_episode_is_scored(local_model, tmp_path):
    status, results, steps = _run(local_model, tmp_path, native=True)
    assert len(results) == len(TASKS) and not any(r.get("error") for r in results)
    assert all(r["overall"] is not None for r in results), results
    assert steps and _parsed(steps) >= 0.9, [s["raw"] for s in steps]
    assert all(s.get("raw") is not None for s in steps)
    assert status == 0


def test_text_actions_end_scored(local_model, tmp_path):
    status, results, steps = _run(local_model, tmp_path, native=False, steps=3, max_tokens=128, tasks=TASKS[:1])
    assert len(results) == 1 and not any(r.get("error") for r in results)
    assert all(r["overall"] is not None for r in results)
    print(f"text actions: {_parsed(steps):.0%} of {len(steps)} SmolLM2 replies parsed")
    assert all(s["raw"] for s in steps), "the model's own text is recorded next to each parsed action"


def test_a_context_overflow_ends_truncated_and_scored(tmp_path):
    """The endpoint's own context-length error (its context is smaller than the first prompt)."""
    from icae_env.serve.local_model import LocalModelServer

    with LocalModelServer(context_length=1024, threads=1) as small:
        status, results, _ = _run(small, tmp_path, native=True, context=32768)
    assert not any(r.get("error") for r in results)
    assert all(r["truncated"] and r["overall"] is not None for r in results), results
    assert all("context" in r["agent_error"].lower() for r in results), [r["agent_error"] for r in results]
    assert status == 0, "a full context alone is not a failed run"
