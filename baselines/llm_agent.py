"""LLM baseline: any OpenAI-compatible chat-completions endpoint builds the project through tool calls.

The env is ``ChatObservations(TextActions(RecordEpisode(icae_env.make("icae/ProjectBuild-v0", ...))))``: each
observation is the chat transcript, sent as ``messages`` with the tools as OpenAI function definitions; the
model's reply (native tool calls, or calls written as JSON, XML tags or fenced blocks) is the action. HTTP goes
through the standard library (``urllib``), with retries on 429, 5xx and connection errors.

The defaults suit a small local model (llama.cpp, vLLM, Ollama): 40 steps, 1024 completion tokens, an 8192-token
context. The transcript is fitted to the context (old tool outputs are elided first, with a visible marker) and
``max_tokens`` is clamped to what the prompt leaves. An endpoint error (the context is full after all, the server
is gone after its retries) ends the episode truncated, with the workspace scored as it is; the error is kept in
the results. One progress line per step goes to stderr. Ctrl-C writes the transcript and the results so far and
exits with status 130; the exit status is 1 when an episode ended in an error or the endpoint failed it (was
unreachable, or kept answering 5xx; a full context is not a failure).

Endpoint settings come from the arguments, else the environment: ``OPENAI_BASE_URL`` (default
``https://api.openai.com/v1``), ``OPENAI_MODEL`` (default ``gpt-4o-mini``) and ``OPENAI_API_KEY``.

Run: python baselines/llm_agent.py --base-url http://127.0.0.1:8000/v1 --model NAME --tasks builtin/unidiff
     icae-env run --agent llm --base-url http://127.0.0.1:8000/v1 --model NAME --tasks builtin/unidiff
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

import icae_env
from icae_env.llm_http import ChatClient, LLMContextError, LLMHttpError, estimate_tokens, model_context_length
from icae_env.run import EpisodeJob, EpisodeResult, RolloutReport, format_table, make_jobs, resolve_tasks, run_episode
from icae_env.run.args import SuiteArgs, parse_args
from icae_env.run.records import ResultSink
from icae_env.wrappers import (
    ChatObservations,
    RecordEpisode,
    TextActionError,
    TextActions,
    parse_text_action,
    tool_schemas,
)

__all__ = ["Args", "ChatClient", "LLMAgent", "main", "make_env", "resolve_endpoint", "run"]

ENV_ID = "icae/ProjectBuild-v0"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_CONTEXT = 8192
MIN_COMPLETION_TOKENS = 64
"""The floor of the clamped ``max_tokens``: a reply needs room for one tool call."""
INTERRUPTED = 130  # the shell's status for a run stopped by SIGINT


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
    max_steps: int = 40
    """steps (model calls) before the episode is truncated and scored"""
    temperature: float = 0.0
    """sampling temperature"""
    max_tokens: int = 1024
    """completion token limit per call, clamped to what the prompt leaves of the context"""
    context_length: int = DEFAULT_CONTEXT
    """the model's context in tokens: the transcript is fitted to it (0: ask the endpoint's /models, else 8192)"""
    native_tools: bool = True
    """send the tools as OpenAI `tools` (false: the model writes calls as text, as the system prompt explains)"""
    tool_content: str = field(default="empty", metadata={"choices": ("empty", "null")})
    """content of an assistant message with tool calls: empty ("", llama-cpp-python) or null"""
    timeout_s: float = 300.0
    """HTTP timeout per call"""
    retries: int = 4
    """retries per call on 429, 5xx and connection errors (exponential back-off from 1 s)"""
    progress: bool = True
    """print one line per step to stderr"""


class LLMAgent:
    """Sends the chat transcript (the observation) to the endpoint and returns the assistant message as the action.

    Args:
        client: The HTTP client.
        model: Model name.
        tools: OpenAI function definitions to send (None: calls are written as text).
        temperature: Sampling temperature.
        max_tokens: Completion token limit per call.
        context_length: The model's context in tokens: ``max_tokens`` is clamped to what the prompt (estimated
            by :func:`~icae_env.llm_http.estimate_tokens`) leaves, at least :data:`MIN_COMPLETION_TOKENS`
            (None: never clamped).

    Attributes:
        usage: Calls and the prompt and completion tokens the endpoint reported.
        last_max_tokens: The ``max_tokens`` of the last request.
    """

    name = "llm"

    def __init__(
        self,
        client: ChatClient,
        model: str,
        tools: list[dict[str, Any]] | None,
        temperature: float,
        max_tokens: int,
        context_length: int | None = None,
    ) -> None:
        self.client, self.model, self.tools = client, model, tools
        self.temperature, self.max_tokens, self.context_length = temperature, max_tokens, context_length
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}
        self.last_max_tokens = max_tokens
        self._seed: int | None = None

    def reset(self, observation: Any, info: dict[str, Any], seed: int | None) -> None:
        """Start an episode (the agent reads only the transcript)."""
        self._seed = seed

    def completion_tokens(self, messages: Sequence[dict[str, Any]]) -> int:
        """The ``max_tokens`` to request for ``messages``: the limit, clamped to what the context leaves."""
        if self.context_length is None:
            return self.max_tokens
        left = self.context_length - estimate_tokens(messages, self.tools)
        return max(MIN_COMPLETION_TOKENS, min(self.max_tokens, left))

    def act(self, observation: Any, info: dict[str, Any]) -> dict[str, Any]:
        """Return the model's next assistant message for the transcript ``observation``.

        Raises:
            LLMHttpError: when the endpoint fails (the run ends the episode truncated and scored).
        """
        self.last_max_tokens = self.completion_tokens(observation)
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": observation,
            "temperature": self.temperature,
            "max_tokens": self.last_max_tokens,
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


def resolve_context(args: Args, client: ChatClient, model: str) -> int:
    """The context length: the argument, else what the endpoint's ``/models`` says, else 8192."""
    if args.context_length > 0:
        return args.context_length
    try:
        found = model_context_length(client.models(), model)
    except LLMHttpError:
        found = None
    return found or DEFAULT_CONTEXT


def _reserve(args: Args, context: int, tools: list[dict[str, Any]] | None) -> int:
    """Tokens of the context kept free of messages: the reply and the tool definitions (at most half)."""
    return min(args.max_tokens + (estimate_tokens((), tools) if tools else 0), context // 2)


def make_env(
    args: Args,
    task: str,
    level: str,
    record_dir: Path | None,
    context: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> ChatObservations:
    """Build the wrapped env for one task and level (recording trajectories into ``record_dir`` when given).

    Args:
        args: The run's arguments.
        task: Task name or pack path.
        level: The level.
        record_dir: Folder of the trajectories (None: not recorded).
        context: The model's context in tokens (None: the transcript is never shortened).
        env_kwargs: More ``icae_env.make`` arguments (a sandbox ...).
    """
    options = {"budget": args.budget, "max_steps": args.max_steps, **(env_kwargs or {})}
    env: gym.Env = icae_env.make(ENV_ID, task=task, level=level, **options)
    if record_dir is not None:
        env = RecordEpisode(env, record_dir, name_prefix=f"{Path(task).name}-{level}-{args.seed}")
    tools = tool_schemas() if args.native_tools else None
    return ChatObservations(
        TextActions(env),
        tool_content=None if args.tool_content == "null" else "",
        context_tokens=context,
        reserve_tokens=_reserve(args, context, tools) if context else 0,
    )


def _describe(action: Any) -> str:
    """One line on what the model did: the tool and its main argument, or the action error."""
    try:
        parsed = parse_text_action(action)
    except TextActionError as error:
        return f"action error: {error.message[:100]}"
    detail = next((str(v) for k, v in parsed.items() if k != "tool"), "")
    detail = " ".join(detail.split())
    return f"{parsed['tool']} {detail[:80]}{'...' if len(detail) > 80 else ''}".rstrip()


class _Progress:
    """Prints ``[task level seed] step n/max tool ...`` to stderr after each step."""

    def __init__(self, job: EpisodeJob, max_steps: int) -> None:
        self.prefix = f"[{Path(job.task).name} {job.level} {job.seed}]"
        self.max_steps = max_steps

    def __call__(self, step: int, action: Any, info: dict[str, Any]) -> None:
        elided = f" ({info['elided']} outputs elided)" if info.get("elided") else ""
        line = f"{self.prefix} step {step}/{self.max_steps} {_describe(action)}{elided}"
        print(line, file=sys.stderr, flush=True)

    def done(self, result: EpisodeResult) -> None:
        if result.error:
            end = f"ERROR {result.error}"
        else:
            overall = "-" if result.overall is None else f"{100 * result.overall:.1f}"
            how = "truncated" if result.truncated else "submitted"
            end = f"{how}, Overall {overall}" + (f"; {result.agent_error}" if result.agent_error else "")
        print(f"{self.prefix} {end} ({result.steps} steps, {result.seconds:.1f}s)", file=sys.stderr, flush=True)


def _run_one(
    args: Args, agent: LLMAgent, job: EpisodeJob, sink: ResultSink, context: int, env_kwargs: dict[str, Any] | None
) -> EpisodeResult:
    """Run one episode; its result goes to the sink and its transcript (so far, even when interrupted) to disk."""
    record_dir = sink.out / "trajectories" if sink.out else None
    env = make_env(args, job.task, job.level, record_dir, context, env_kwargs)
    progress = _Progress(job, args.max_steps) if args.progress else None
    try:
        result = run_episode(env, agent, seed=job.seed, options=job.options, on_step=progress)
        if progress is not None:
            progress.done(result)
        sink.episode(job, result, None)
        return result
    finally:
        if sink.out and env.transcript:
            path = sink.out / "transcripts" / f"{Path(job.task).name}-{job.level}-{job.seed}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(env.transcript, ensure_ascii=False, indent=1), encoding="utf-8")
        env.close()


def run(
    args: Args,
    *,
    tasks: Sequence[str] | None = None,
    seeds: Sequence[int | None] | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> int:
    """Run the LLM agent over the selected tasks, levels and seeds; print the table and the token usage.

    Args:
        args: The run's arguments.
        tasks: The tasks (default: ``args.tasks`` resolved).
        seeds: Reset seeds (default: ``args.seed``).
        env_kwargs: More ``icae_env.make`` arguments (a sandbox ...).

    Returns:
        The exit status: 0; 1 when an episode ended in an error or the endpoint failed it (a full context aside);
        130 when interrupted (Ctrl-C).
    """
    base_url, model, key = resolve_endpoint(args)
    client = ChatClient(base_url, key, timeout_s=args.timeout_s, retries=args.retries)
    context = resolve_context(args, client, model)
    tools = tool_schemas() if args.native_tools else None
    agent = LLMAgent(client, model, tools, args.temperature, args.max_tokens, context)
    jobs = make_jobs(list(tasks) if tasks else resolve_tasks(args.tasks), args.level_list, seeds or (args.seed,))
    sink = ResultSink(len(jobs), Path(args.out) if args.out else None, progress=False, on_result=None)
    results: list[EpisodeResult] = []
    interrupted = False
    try:
        for job in jobs:
            results.append(_run_one(args, agent, job, sink, context, env_kwargs))
    except KeyboardInterrupt:
        interrupted = True
    sink.write_summary(f"llm ({model})", args.level_list, RolloutReport(results))
    if results:
        print(format_table(results))
    usage = agent.usage
    print(
        f"model {model} at {base_url} ({context}-token context): {usage['calls']} calls, "
        f"{usage['prompt_tokens']} prompt and {usage['completion_tokens']} completion tokens"
    )
    if interrupted:
        where = f"; transcripts and results so far in {args.out}" if args.out else ""
        print(f"interrupted after {len(results)} of {len(jobs)} episodes{where}", file=sys.stderr)
        return INTERRUPTED
    return 1 if any(r.error or _endpoint_failed(r) for r in results) else 0


def _endpoint_failed(result: EpisodeResult) -> bool:
    """Whether the endpoint failed the episode (unreachable, 5xx after retries); a full context is not a failure."""
    return bool(result.agent_error) and not str(result.agent_error).startswith(f"{LLMContextError.__name__}:")


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and :func:`run`; return the exit status."""
    return run(parse_args(Args, __doc__ or "", argv))


if __name__ == "__main__":
    sys.exit(main())
