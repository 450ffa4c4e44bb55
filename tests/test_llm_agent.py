"""The LLM baseline end to end over real HTTP against the scripted OpenAI-compatible stub, and its HTTP client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from openai_stub import OpenAIStub, request_problems

import icae_env
from icae_env.baselines.llm_agent import Args, ChatClient, LLMAgent, resolve_endpoint
from icae_env.run.trajectory import read_trajectory
from icae_env.sandbox.local import bwrap_available
from icae_env.tasks import load_task
from icae_env.wrappers import (
    INVALID_ACTION,
    ChatObservations,
    TextActions,
    assistant_turns,
    parse_text_action,
    tool_schemas,
)

ROOT = Path(__file__).resolve().parents[1]
TASK = "builtin/unidiff"
KEY = "sk-stub-123"


def call(call_id: str, name: str, **arguments) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def tool_message(*calls: dict, content: str | None = None) -> dict:
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


def golden_script() -> list:
    """What a competent model might send: questions, a text-mode command, mistakes, the golden files, submit."""
    golden = load_task(TASK).golden_dir
    assert golden is not None
    writes = [
        tool_message(call(f"call_w{i}", "write_file", path=p.relative_to(golden).as_posix(), content=p.read_text()))
        for i, p in enumerate(sorted(p for p in golden.rglob("*") if p.is_file()))
    ]
    return [
        tool_message(call("call_q1", "ask", question="what does the input json look like?")),
        "Let me look at the workspace first.\n<bash>echo files: && ls -A</bash>",
        tool_message(call("call_x1", "bash", command="pwd"), call("call_x2", "view", path=".")),
        tool_message(call("call_d1", "deploy", target="prod")),
        {"role": "assistant", "content": '{"name": "bash", "arguments": "{\\"command\\": '},
        *writes,
        "Make the harness executable:\n```bash\nchmod +x rcb_tests/test.sh\n```",
        tool_message(call("call_s", "submit")),
    ]


def run_script(
    tmp_path: Path, script: list, extra: tuple[str, ...] = ()
) -> tuple[OpenAIStub, subprocess.CompletedProcess]:
    with OpenAIStub(script, api_key=KEY) as stub:
        env = {**os.environ, "OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": KEY, "OPENAI_MODEL": "stub-model"}
        command = [sys.executable, str(ROOT / "baselines" / "llm_agent.py"), "--tasks", TASK, "--out", str(tmp_path)]
        roomy = ["--context-length", "10000000", "--max-steps", "80"]  # the whole transcript, every time
        result = subprocess.run([*command, *roomy, *extra], capture_output=True, text=True, env=env, timeout=300)
    return stub, result


@pytest.fixture(scope="module")
def episode(tmp_path_factory):
    """One scripted episode of the real script over HTTP; shared by the end-to-end checks."""
    out = tmp_path_factory.mktemp("llm")
    script = golden_script()
    stub, result = run_script(out, script)
    return {"out": out, "stub": stub, "result": result, "script": script, "script_length": len(script)}


def test_the_llm_agent_completes_a_builtin_task_over_http(episode):
    result, stub = episode["result"], episode["stub"]
    assert result.returncode == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("unidiff"))
    assert row.split()[2] == "100.0", result.stdout  # Overall
    assert f"{episode['script_length']} calls" in result.stdout
    assert stub.problems == [] and stub.script == []
    assert len(stub.requests) == episode["script_length"]
    assert {h["Authorization"] for h in stub.headers} == {f"Bearer {KEY}"}
    first = stub.requests[0]
    assert first["model"] == "stub-model" and first["tools"] == tool_schemas() and first["seed"] == 0
    records = [json.loads(line) for line in (episode["out"] / "results.jsonl").read_text().splitlines()]
    assert records[0]["overall"] == 1.0 and records[0]["agent"] == "llm" and records[0]["error"] is None


def test_the_model_saw_the_env_transcript_and_it_round_trips(episode):
    transcript = json.loads((episode["out"] / "transcripts" / "unidiff-L1-0.json").read_text())
    requests = episode["stub"].requests
    for request in requests:  # every request is the transcript so far, sent as JSON over HTTP
        assert transcript[: len(request["messages"])] == request["messages"]
    assert len(transcript) == len(requests[-1]["messages"]) + 2  # the final call and its tool result
    sent = [{"role": "assistant", "content": m} if isinstance(m, str) else m for m in episode["script"]]
    sent = [{**m, "content": m["content"] or ""} if m.get("tool_calls") else m for m in sent]  # "" with tool calls
    assert assistant_turns(transcript) == sent
    env = ChatObservations(TextActions(icae_env.make("icae/ProjectBuild-v0", task=TASK, budget=16, max_steps=80)))
    try:
        replayed, _ = env.reset(seed=0, options={"task": TASK, "level": "L1"})
        for turn in assistant_turns(transcript):
            replayed, reward, terminated, truncated, info = env.step(turn)
    finally:
        env.close()
    assert terminated and info["score"]["overall"] == 1.0
    start = 0 if bwrap_available() else 2  # without bwrap the intro shows a per-episode host workspace path
    assert replayed[start:] == transcript[start:]


def test_mistakes_became_observations_with_hints(episode):
    transcript = json.loads((episode["out"] / "transcripts" / "unidiff-L1-0.json").read_text())
    text_mode = next(i for i, m in enumerate(transcript) if (m.get("content") or "").startswith("Let me look"))
    assert transcript[text_mode + 1]["role"] == "user"  # a call written as text gets its result as a user message
    assert transcript[text_mode + 1]["content"] == "files:\n"  # it ran, in the empty workspace
    two = [m for m in transcript if m.get("tool_call_id") in ("call_x1", "call_x2")]
    assert len(two) == 2 and all("2 tool calls (bash, view)" in m["content"] for m in two)
    unknown = next(m for m in transcript if m.get("tool_call_id") == "call_d1")["content"]
    assert "unknown tool 'deploy'" in unknown and "Hint:" in unknown
    broken = transcript[transcript.index(next(m for m in transcript if m.get("tool_call_id") == "call_d1")) + 2]
    assert broken["role"] == "user" and broken["content"].startswith("Action error: malformed tool call: invalid JSON")


def test_the_trajectory_holds_the_actions_the_transcript_parses_to(episode):
    transcript = json.loads((episode["out"] / "transcripts" / "unidiff-L1-0.json").read_text())
    paths = list((episode["out"] / "trajectories").glob("*.jsonl"))
    assert len(paths) == 1
    recorded = [r["action"] for r in read_trajectory(paths[0]) if r["type"] == "step"]
    expected = []
    for turn in assistant_turns(transcript):
        try:
            expected.append(parse_text_action(turn))
        except ValueError:
            expected.append(INVALID_ACTION)
    assert recorded == expected
    assert recorded[0] == {"tool": "ask", "question": "what does the input json look like?"}
    assert recorded[-1] == {"tool": "submit"}


def test_text_mode_sends_no_tools_and_a_server_error_is_an_episode_error(tmp_path):
    script = ["<submit/>"]
    stub, result = run_script(tmp_path, script, ("--native_tools", "false", "--retries", "0"))
    assert result.returncode == 0, result.stderr
    assert "tools" not in stub.requests[0]
    assert '"name": "submit"' in stub.requests[0]["messages"][0]["content"]  # the schema is in the system prompt
    assert "unidiff" in result.stdout and "1 calls" in result.stdout


def test_client_retries_transient_errors_and_reports_the_rest():
    script = [{"status": 503, "error": "overloaded"}, {"status": 429}, "<submit/>"]
    with OpenAIStub(script) as stub:
        client = ChatClient(stub.base_url, timeout_s=10, retries=2, backoff_s=0)
        agent = LLMAgent(client, "m", None, 0.0, 100)
        action = agent.act([{"role": "user", "content": "hi"}], {})
        assert action == {"role": "assistant", "content": "<submit/>"}
        assert len(stub.requests) == 3 and agent.usage["calls"] == 1
        assert "Authorization" not in stub.headers[0]
        with pytest.raises(RuntimeError, match=r"HTTP 400: .*messages must be a non-empty list"):
            agent.act([], {})
    with pytest.raises(ValueError, match="base_url must start with http"):
        ChatClient("localhost:8000/v1")
    with OpenAIStub([]) as stub:
        closed = stub.base_url
    with pytest.raises(RuntimeError, match="unreachable after 2 attempts"):
        ChatClient(closed, timeout_s=5, retries=1, backoff_s=0).complete({"model": "m", "messages": []})


def test_endpoint_settings_come_from_arguments_then_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env:1/v1")
    monkeypatch.setenv("OPENAI_MODEL", "env-model")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert resolve_endpoint(Args()) == ("http://env:1/v1", "env-model", "")
    assert resolve_endpoint(Args(base_url="http://arg:2/v1", model="m", api_key="k")) == ("http://arg:2/v1", "m", "k")
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.delenv("OPENAI_MODEL")
    assert resolve_endpoint(Args())[:2] == ("https://api.openai.com/v1", "gpt-4o-mini")


def test_the_stub_rejects_what_openai_rejects():
    assert request_problems({"model": "m", "messages": [{"role": "user", "content": "x"}]}) == []
    dangling = tool_message(call("c1", "bash", command="ls"))
    assert "tool calls without a tool result: ['c1']" in request_problems({"model": "m", "messages": [dangling]})
    early = [dangling, {"role": "user", "content": "x"}]
    assert request_problems({"model": "m", "messages": early})[0].startswith("messages[1] (user) comes before")
