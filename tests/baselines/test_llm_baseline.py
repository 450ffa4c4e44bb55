"""The LLM baseline as a tool people run, against real loopback HTTP servers (no model).

An endpoint's context-length error ends the episode truncated and scored (the workspace is kept), errors make the
exit status non-zero, Ctrl-C keeps the transcript, ``icae-env run --agent llm`` works, and ``max_tokens`` is
clamped to what the context leaves.
"""

from __future__ import annotations

import base64
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from interrupt import default_sigint

from icae_env.baselines import llm_agent
from icae_env.cli import main as cli_main
from icae_env.llm_http import ChatClient, LLMContextError, estimate_tokens
from icae_env.tasks import load_task

ROOT = Path(__file__).resolve().parents[2]
TASK = "builtin/unidiff"
#: What llama-cpp-python's server answers when prompt and completion outgrow the context (HTTP 400).
LLAMA_CPP_CONTEXT_ERROR = {
    "error": {
        "message": "This model's maximum context length is 8192 tokens. However, you requested 8919 tokens "
        "(8407 in the messages, 512 in the completion). Please reduce the length of the messages or completion.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}
Reply = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]


class Server:
    """A chat-completions endpoint on 127.0.0.1 whose n-th request gets ``replies[n]`` (status, JSON body)."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies, self.requests = replies, []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                index = len(owner.requests) - 1
                status, payload = owner.replies[min(index, len(owner.replies) - 1)](body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client was interrupted while it waited

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def say(message: dict[str, Any]) -> Reply:
    completion = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": {}}
    return lambda body: (200, {**completion, "model": body["model"]})


def tool_call(name: str, **arguments: Any) -> Reply:
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return say({"role": "assistant", "content": None, "tool_calls": [call]})


def context_full(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return 400, LLAMA_CPP_CONTEXT_ERROR


def golden_in_one_command() -> str:
    """A bash command that unpacks the task's golden solution into the workspace (executable bits kept)."""
    golden = load_task(TASK).golden_dir
    assert golden is not None
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(p for p in golden.rglob("*") if p.is_file()):
            info = archive.gettarinfo(str(path), path.relative_to(golden).as_posix())
            info.mode = 0o755 if path.suffix == ".sh" else 0o644
            archive.addfile(info, path.open("rb"))
    return f"echo {base64.b64encode(buffer.getvalue()).decode()} | base64 -d | tar -xz"


@pytest.fixture
def server():
    servers: list[Server] = []

    def start(replies: list[Reply]) -> Server:
        servers.append(Server(replies))
        return servers[-1]

    yield start
    for one in servers:
        one.close()


def args(base_url: str, out: Path, **more: Any) -> llm_agent.Args:
    return llm_agent.Args(tasks=TASK, base_url=base_url, model="local", out=str(out), retries=0, **more)


def test_a_context_length_error_ends_the_episode_truncated_and_scored(server, tmp_path, capsys):
    endpoint = server([tool_call("bash", command=golden_in_one_command()), context_full])
    assert llm_agent.run(args(endpoint.base_url, tmp_path)) == 0
    record = json.loads((tmp_path / "results.jsonl").read_text())
    assert record["error"] is None and record["truncated"] is True and record["steps"] == 1
    assert record["overall"] == 1.0, "the workspace the model built was scored, not thrown away"
    assert (
        record["agent_error"].startswith("LLMContextError: ") and "you requested 8919 tokens" in record["agent_error"]
    )
    transcript = json.loads((tmp_path / "transcripts" / "unidiff-L1-0.json").read_text())
    assert [m["role"] for m in transcript] == ["system", "user", "assistant", "tool"]
    assert transcript[2]["content"] == ""  # llama-cpp-python answers HTTP 500 to null content
    out, err = capsys.readouterr()
    assert "[unidiff L1 0] step 1/40 bash echo " in err
    assert "[unidiff L1 0] truncated, Overall 100.0; LLMContextError" in err
    row = next(line for line in out.splitlines() if line.startswith("unidiff"))
    assert row.split()[2] == "100.0" and row.endswith("you requested 8919 tokens (8407 in the messages, 512 in the "
                                                      "completion). Please reduce the length of the messages or "
                                                      'completion.", "type": "invalid_request_error", "param": '
                                                      '"messages", "code": "context_length_exceeded"}}')  # fmt: skip
    summary = (tmp_path / "summary.md").read_text()
    assert "| error |" in summary and "context_length_exceeded" in summary


def test_the_client_types_context_errors_and_retries_nothing_else_then(server):
    endpoint = server([context_full])
    with pytest.raises(LLMContextError, match="HTTP 400: .*maximum context length is 8192"):
        ChatClient(endpoint.base_url, retries=3, backoff_s=0).complete({"model": "m", "messages": []})
    assert len(endpoint.requests) == 1


def test_max_tokens_is_clamped_to_what_the_context_leaves(server, tmp_path):
    endpoint = server([say({"role": "assistant", "content": "<submit/>"})])
    assert llm_agent.run(args(endpoint.base_url, tmp_path, context_length=4000, max_tokens=3000)) == 0
    body = endpoint.requests[0]
    prompt = estimate_tokens(body["messages"], body["tools"])
    assert body["max_tokens"] == 4000 - prompt < 3000
    agent = llm_agent.LLMAgent(ChatClient(endpoint.base_url), "m", None, 0.0, 512, context_length=1000)
    assert agent.completion_tokens([{"role": "user", "content": "x" * 3000}]) == llm_agent.MIN_COMPLETION_TOKENS
    assert agent.completion_tokens([{"role": "user", "content": "x"}]) == 512


def test_an_episode_error_makes_the_exit_status_non_zero(server, tmp_path, monkeypatch, capsys):
    def broken(self, observation, info):
        raise RuntimeError("the agent has a bug " + "and a long explanation " * 5)

    monkeypatch.setattr(llm_agent.LLMAgent, "act", broken)
    endpoint = server([say({"role": "assistant", "content": "<submit/>"})])
    assert llm_agent.run(args(endpoint.base_url, tmp_path)) == 1
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("unidiff"))
    assert row.split()[2] == "ERROR" and row.endswith("and a long explanation and a long explanation")
    record = json.loads((tmp_path / "results.jsonl").read_text())
    assert record["error"].startswith("RuntimeError: the agent has a bug") and record["overall"] is None


def test_icae_env_run_takes_the_llm_agent(server, tmp_path, capsys):
    endpoint = server(
        [tool_call("bash", command="echo hi > notes.txt"), say({"role": "assistant", "content": "Done."})]
    )
    argv = ["run", "--agent", "llm", "--base-url", endpoint.base_url, "--model", "tiny", "--tasks", TASK]
    status = cli_main(
        [*argv, "--max-steps", "3", "--max-tokens", "256", "--tool-content", "null", "--out", str(tmp_path)]
    )
    assert status == 0
    assert [body["model"] for body in endpoint.requests] == ["tiny"] * 3 and endpoint.requests[0]["max_tokens"] == 256
    assert endpoint.requests[1]["messages"][2]["content"] is None  # --tool-content null
    record = json.loads((tmp_path / "results.jsonl").read_text())
    assert record["agent"] == "llm" and record["truncated"] and record["steps"] == 3 and record["overall"] is not None
    err = capsys.readouterr().err
    assert "step 1/3 bash echo hi > notes.txt" in err and "step 2/3 action error: no tool call found" in err
    assert "--workers" in cli_main_error(["run", "--agent", "llm", "--workers", "2"], capsys)


def cli_main_error(argv: list[str], capsys) -> str:
    assert cli_main(argv) == 2
    return capsys.readouterr().err


def test_ctrl_c_keeps_the_transcript_and_results_so_far(server, tmp_path):
    release = threading.Event()

    def hang(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        release.wait(60)
        return 503, {"error": {"message": "gone"}}

    endpoint = server([tool_call("bash", command="echo one > one.txt"), hang])
    command = [sys.executable, str(ROOT / "baselines" / "llm_agent.py"), "--base-url", endpoint.base_url]
    command += ["--model", "m", "--tasks", TASK, "--out", str(tmp_path), "--retries", "0"]
    child = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint, env={**os.environ, "PYTHONUNBUFFERED": "1"})  # fmt: skip
    try:
        assert child.stderr is not None
        lines = iter(child.stderr.readline, "")
        line = next((line for line in lines if "step 1/" in line), "")
        assert "step 1/40 bash echo one > one.txt" in line, line
        while len(endpoint.requests) < 2:  # the second call is in flight
            threading.Event().wait(0.05)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        release.set()
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, err
    assert "Traceback" not in err and "interrupted after 0 of 1 episodes" in err
    transcript = json.loads((tmp_path / "transcripts" / "unidiff-L1-0.json").read_text())
    assert [m["role"] for m in transcript] == ["system", "user", "assistant", "tool"]
    assert (tmp_path / "summary.md").exists() and len(list((tmp_path / "trajectories").glob("*.jsonl"))) == 1


def test_an_unreachable_endpoint_scores_the_workspace_but_fails_the_run(server, tmp_path, capsys):
    gone = server([context_full])
    base_url = gone.base_url
    gone.close()
    assert llm_agent.run(args(base_url, tmp_path)) == 1
    record = json.loads((tmp_path / "results.jsonl").read_text())
    assert record["error"] is None and record["truncated"] and record["steps"] == 0 and record["overall"] == 0.0
    error = record["agent_error"]
    assert error.startswith("LLMHttpError: ") and "unreachable after 1 attempts" in error
