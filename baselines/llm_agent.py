"""LLM baseline: any OpenAI-compatible chat-completions endpoint builds the project through tool calls.

The env is ``ChatObservations(TextActions(RecordEpisode(icae_env.make("icae/ProjectBuild-v0", ...))))``: each
observation is the chat transcript, sent as ``messages`` with the tools as OpenAI function definitions; the
model's reply (native tool calls, or calls written as JSON, XML tags or fenced blocks) is the action. HTTP goes
through the standard library (``urllib``), with retries on 429, 5xx and connection errors.

Endpoint settings come from the arguments, else the environment: ``OPENAI_BASE_URL`` (default
``https://api.openai.com/v1``), ``OPENAI_MODEL`` (default ``gpt-4o-mini``) and ``OPENAI_API_KEY``.

Run: OPENAI_API_KEY=... python baselines/llm_agent.py --tasks builtin/unidiff --levels L1 [--out runs/llm]
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym

import icae_env
from icae_env.errors import ArgumentError
from icae_env.llm_http import LLMHttpError
from icae_env.run import EpisodeJob, EpisodeResult, RolloutReport, format_table, make_jobs, resolve_tasks, run_episode
from icae_env.run.args import SuiteArgs, parse_args
from icae_env.run.records import ResultSink
from icae_env.wrappers import ChatObservations, RecordEpisode, TextActions, tool_schemas

ENV_ID = "icae/ProjectBuild-v0"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"
_RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


@dataclass
class Args(SuiteArgs):
    """Command-line arguments (the seed is also sent to the endpoint)."""

    tasks: str = "builtin/unidiff"
    """comma-separated task names or pack paths; 'builtin' selects every built-in task"""
    base_url: str = ""
    """chat-completions base URL (empty: $OPENAI_BASE_URL, else https://api.openai.com/v1)"""
    model: str = ""
    """model name (empty: $OPENAI_MODEL, else gpt-4o-mini)"""
    api_key: str = ""
    """API key (empty: $OPENAI_API_KEY; none at all: no Authorization header)"""
    budget: int = 16
    """clarification questions per episode"""
    max_steps: int = 80
    """steps (model calls) before the episode is truncated and scored"""
    temperature: float = 0.0
    """sampling temperature"""
    max_tokens: int = 8192
    """completion token limit per call"""
    native_tools: bool = True
    """send the tools as OpenAI `tools` (false: the model writes calls as text, as the system prompt explains)"""
    timeout_s: float = 300.0
    """HTTP timeout per call"""
    retries: int = 4
    """retries per call on 429, 5xx and connection errors (exponential back-off from 1 s)"""


class ChatClient:
    """POSTs chat-completions requests with ``urllib``, retrying transient failures.

    Args:
        base_url: The endpoint's base URL (``.../v1``).
        api_key: Bearer key (empty: no Authorization header).
        timeout_s: Timeout per HTTP call.
        retries: Retries after the first attempt.
        backoff_s: First back-off; it doubles per retry.
    """

    def __init__(
        self, base_url: str, api_key: str = "", timeout_s: float = 300.0, retries: int = 4, backoff_s: float = 1.0
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ArgumentError(f"base_url must start with http:// or https://, got {base_url!r}")
        if retries < 0 or timeout_s <= 0 or backoff_s < 0:
            raise ArgumentError(
                f"need retries >= 0, timeout_s > 0 and backoff_s >= 0; got {retries}, {timeout_s}, {backoff_s}"
            )
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key, self.timeout_s, self.retries, self.backoff_s = api_key, timeout_s, retries, backoff_s

    def _request(self, payload: dict[str, Any]) -> urllib.request.Request:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        return urllib.request.Request(self.url, data=data, headers=headers, method="POST")

    def _decode(self, body: str) -> dict[str, Any]:
        try:
            decoded = json.loads(body)
        except json.JSONDecodeError:
            decoded = None
        if not isinstance(decoded, dict):
            raise LLMHttpError(f"{self.url} returned something other than a JSON object: {body[:300]!r}")
        return decoded

    def complete(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Return the decoded completion for ``payload``.

        Raises:
            LLMHttpError: for a non-retryable HTTP error, or when the retries are used up (a ``RuntimeError``).
        """
        for attempt in range(self.retries + 1):
            try:
                with urllib.request.urlopen(self._request(payload), timeout=self.timeout_s) as response:
                    body = response.read().decode("utf-8", errors="replace")
                return self._decode(body)
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode("utf-8", errors="replace")[:500]
                if exc.code not in _RETRY_STATUS or attempt == self.retries:
                    raise LLMHttpError(f"{self.url} answered HTTP {exc.code}: {detail}") from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt == self.retries:
                    raise LLMHttpError(f"{self.url} unreachable after {attempt + 1} attempts: {exc}") from None
            time.sleep(self.backoff_s * 2**attempt)
        raise AssertionError("unreachable")  # pragma: no cover


class LLMAgent:
    """Sends the chat transcript (the observation) to the endpoint and returns the assistant message as the action.

    Args:
        client: The HTTP client.
        model: Model name.
        tools: OpenAI function definitions to send (None: calls are written as text).
        temperature: Sampling temperature.
        max_tokens: Completion token limit per call.
    """

    name = "llm"

    def __init__(
        self, client: ChatClient, model: str, tools: list[dict[str, Any]] | None, temperature: float, max_tokens: int
    ) -> None:
        self.client, self.model, self.tools = client, model, tools
        self.temperature, self.max_tokens = temperature, max_tokens
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}
        self._seed: int | None = None

    def reset(self, observation: Any, info: dict[str, Any], seed: int | None) -> None:
        """Start an episode (the agent reads only the transcript)."""
        self._seed = seed

    def act(self, observation: Any, info: dict[str, Any]) -> dict[str, Any]:
        """Return the model's next assistant message for the transcript ``observation``."""
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": observation,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self._seed is not None:
            payload["seed"] = self._seed
        if self.tools:
            payload.update(tools=self.tools, tool_choice="auto", parallel_tool_calls=False)
        response = self.client.complete(payload)
        choices = response.get("choices") or []
        if not choices or not isinstance(choices[0].get("message"), dict):
            raise LLMHttpError(f"the endpoint returned no message: {json.dumps(response)[:300]}")
        self._count(response.get("usage") or {})
        message = choices[0]["message"]
        action = {"role": "assistant", "content": message.get("content")}
        if message.get("tool_calls"):
            action["tool_calls"] = message["tool_calls"]
        return action

    def _count(self, usage: dict[str, Any]) -> None:
        self.usage["calls"] += 1
        for key in ("prompt_tokens", "completion_tokens"):
            self.usage[key] += int(usage.get(key) or 0)


def resolve_endpoint(args: Args) -> tuple[str, str, str]:
    """Return (base URL, model, key) from the arguments, else the environment, else the defaults."""
    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    model = args.model or os.environ.get("OPENAI_MODEL") or DEFAULT_MODEL
    return base_url, model, args.api_key or os.environ.get("OPENAI_API_KEY", "")


def make_env(args: Args, task: str, level: str, record_dir: Path | None) -> ChatObservations:
    """Build the wrapped env for one task and level (recording trajectories into ``record_dir`` when given)."""
    env: gym.Env = icae_env.make(ENV_ID, task=task, level=level, budget=args.budget, max_steps=args.max_steps)
    if record_dir is not None:
        env = RecordEpisode(env, record_dir, name_prefix=f"{Path(task).name}-{level}-{args.seed}")
    return ChatObservations(TextActions(env))


def _run_one(args: Args, agent: LLMAgent, job: EpisodeJob, sink: ResultSink) -> EpisodeResult:
    """Run one episode; its result goes to the run's sink and, with an output directory, its transcript too."""
    env = make_env(args, job.task, job.level, sink.out / "trajectories" if sink.out else None)
    try:
        result = run_episode(env, agent, seed=job.seed, options=job.options)
        if sink.out:
            path = sink.out / "transcripts" / f"{Path(job.task).name}-{job.level}-{job.seed}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(env.transcript, ensure_ascii=False, indent=1), encoding="utf-8")
        sink.episode(job, result, None)
        return result
    finally:
        env.close()


def main() -> None:
    """Run the LLM agent over the selected tasks and levels and print the result table and token usage."""
    args = parse_args(Args, __doc__)
    base_url, model, key = resolve_endpoint(args)
    client = ChatClient(base_url, key, timeout_s=args.timeout_s, retries=args.retries)
    agent = LLMAgent(client, model, tool_schemas() if args.native_tools else None, args.temperature, args.max_tokens)
    jobs = make_jobs(resolve_tasks(args.tasks), args.level_list, (args.seed,))
    sink = ResultSink(len(jobs), Path(args.out) if args.out else None, progress=False, on_result=None)
    results = [_run_one(args, agent, job, sink) for job in jobs]
    sink.write_summary(f"llm ({model})", args.level_list, RolloutReport(results))
    print(format_table(results))
    usage = agent.usage
    print(
        f"model {model} at {base_url}: {usage['calls']} calls, {usage['prompt_tokens']} prompt and "
        f"{usage['completion_tokens']} completion tokens"
    )


if __name__ == "__main__":
    main()
