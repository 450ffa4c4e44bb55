"""``ChatObservations``: the episode as OpenAI chat messages, ready to send to a chat-completions endpoint.

The transcript is: a system prompt with the tool schema, the first observation (PRD and instructions) as a user
message, then per step the agent's assistant message and the result, as one ``tool`` message per tool call
(``tool_call_id`` set) or, for a plain-text action, as a ``user`` message.

With a context budget (``context_tokens``) the observation is the transcript fitted to it: when the estimate
(:func:`~icae_env.llm_http.estimate_tokens`, or an injected counter) exceeds the budget, the oldest results are
replaced by :data:`ELIDED` markers first, then long arguments of older assistant messages, then the newest result
is cut in the middle. The system prompt and the first user message (the task) are never touched, and
:attr:`ChatObservations.transcript` keeps everything.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces import Space
from pydantic import BaseModel

from icae_env.errors import ArgumentError, ArgumentTypeError
from icae_env.llm_http import estimate_tokens
from icae_env.run.trajectory import jsonable
from icae_env.wrappers.text_parsing import content_text
from icae_env.wrappers.tool_schema import check_text_env, check_tools, tool_instructions, tool_schemas

__all__ = [
    "ChatObservations",
    "Messages",
    "ROLES",
    "DEFAULT_SYSTEM_PROMPT",
    "ELIDED",
    "TokenCounter",
    "assistant_turns",
]

ROLES = ("system", "user", "assistant", "tool")
DEFAULT_SYSTEM_PROMPT = (
    "You are an autonomous agent in an icae-env environment. The first user message describes the task; read it "
    "carefully, ask the user about anything the description leaves open, and finish with submit.\n\n{tools}"
)
_SOURCE_TOOL = 0
#: What replaces an output (or a long argument) that was left out to fit the context.
ELIDED = "[output elided to fit the context: {n} characters]"
_KEEP_ARGUMENT_CHARS = 400  # argument values of older assistant messages up to this length are kept
TokenCounter = Callable[[Sequence[dict[str, Any]]], int]
"""Counts the prompt tokens of a list of chat messages."""


def _is_message(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("role") not in ROLES:
        return False
    content = value.get("content")
    return isinstance(content, str) or (content is None and value["role"] == "assistant")


class Messages(Space[list]):
    """A chat transcript: a list of ``{"role", "content", ...}`` dicts with roles from :data:`ROLES`.

    Example:
        >>> Messages().contains([{"role": "user", "content": "hi"}]), Messages().contains([{"role": "bot"}])
        (True, False)
    """

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Transcripts are not flattenable to a numpy vector."""
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> list[dict[str, Any]]:
        """Return a short random transcript (a system and a user message)."""
        word = "".join(chr(int(c)) for c in self.np_random.integers(ord("a"), ord("z") + 1, size=6))
        return [{"role": "system", "content": "You are an agent."}, {"role": "user", "content": word}]

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a list of well-formed messages."""
        return isinstance(x, list) and all(_is_message(m) for m in x)

    def to_jsonable(self, sample_n: Iterable[list]) -> list[list]:
        """Transcripts are already JSON-able."""
        return list(sample_n)

    def from_jsonable(self, sample_n: list[list]) -> list[list]:
        """Transcripts are already JSON-able."""
        return list(sample_n)

    def __repr__(self) -> str:
        return "Messages()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Messages)


def assistant_turns(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the assistant messages of a transcript: the actions that produced it, in order."""
    return [copy.deepcopy(m) for m in messages if m.get("role") == "assistant"]


class ChatObservations(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Present observations as the whole episode so far, in OpenAI chat-message form.

    The observation is a fresh list of message dicts (:class:`Messages`); :attr:`tool_definitions` holds the
    matching ``tools`` field of a chat-completions request. Step it with what the model returned: an assistant
    message dict (tool calls kept with their ids), plain text, or an action dict (shown as a tool call with a
    generated id). Wrap :class:`~wrappers.TextActions` inside it so that the env can take those. Re-stepping
    :func:`assistant_turns` of a transcript through a fresh, identically seeded stack yields the transcript again
    (bytes actions are shown decoded, with U+FFFD where they are not UTF-8, so those do not round-trip).

    Args:
        env: An icae-env env (observations are dicts with ``output`` and ``source``).
        tools: Tool names shown to the model (default: every tool).
        system_prompt: System prompt; ``{tools}`` is replaced by the tool schema and call formats.
        tool_content: The ``content`` of an assistant message that carries tool calls and no text: ``""``
            (llama-cpp-python answers HTTP 500 to null) or None (``null``, for endpoints that want it).
        context_tokens: The model's context length in tokens (None: the transcript is never shortened).
        reserve_tokens: Tokens of the context kept free for what is sent besides the messages and for the reply
            (tool definitions, ``max_tokens``); the messages are fitted into ``context_tokens - reserve_tokens``.
        count_tokens: Counts the tokens of a message list (default: :func:`~icae_env.llm_http.estimate_tokens`).

    Attributes:
        elided: How many messages the last observation shortened to fit the context (also ``info["elided"]``).

    Example:
        >>> from icae_env.envs.clarify import ClarifyEnv
        >>> from wrappers.text_actions import TextActions
        >>> tools = ("ask", "submit")
        >>> env = ChatObservations(TextActions(ClarifyEnv(task="builtin/dep-resolver"), tools=tools), tools=tools)
        >>> messages, info = env.reset(seed=0)
        >>> [m["role"] for m in messages], '"name": "ask"' in messages[0]["content"]
        (['system', 'user'], True)
        >>> messages, *_ = env.step("<ask>How are cycles reported?</ask>")
        >>> [m["role"] for m in messages], messages[-1]["content"][:20]
        (['system', 'user', 'assistant', 'user'], 'When a dependency be')
        >>> call = {"id": "call_7", "type": "function", "function": {"name": "submit", "arguments": "{}"}}
        >>> messages, *_ = env.step({"role": "assistant", "content": None, "tool_calls": [call]})
        >>> messages[-1]["role"], messages[-1]["tool_call_id"]
        ('tool', 'call_7')
    """

    def __init__(
        self,
        env: gym.Env,
        tools: Sequence[str] | None = None,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        *,
        tool_content: str | None = "",
        context_tokens: int | None = None,
        reserve_tokens: int = 0,
        count_tokens: TokenCounter | None = None,
    ) -> None:
        chosen = check_tools(tools)
        if not isinstance(system_prompt, str):
            raise ArgumentTypeError(f"system_prompt must be a str, got {type(system_prompt).__name__}")
        _check_context(tool_content, context_tokens, reserve_tokens, count_tokens)
        check_text_env(env, "ChatObservations")
        gym.utils.RecordConstructorArgs.__init__(
            self,
            tools=list(chosen) if tools is not None else None,
            system_prompt=system_prompt,
            tool_content=tool_content,
            context_tokens=context_tokens,
            reserve_tokens=reserve_tokens,
            count_tokens=count_tokens,
        )
        gym.ObservationWrapper.__init__(self, env)
        self.tools = chosen
        self.system_prompt = system_prompt.replace("{tools}", tool_instructions(chosen))
        self.tool_definitions = tool_schemas(chosen)
        self.observation_space = Messages()
        self.tool_content = tool_content
        self.context_tokens, self.reserve_tokens = context_tokens, reserve_tokens
        self.count_tokens: TokenCounter = count_tokens or estimate_tokens
        self.elided = 0
        self._messages: list[dict[str, Any]] = []
        self._pending: dict[str, Any] | None = None
        self._calls = 0

    @property
    def transcript(self) -> list[dict[str, Any]]:
        """A copy of the transcript so far."""
        return copy.deepcopy(self._messages)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[list, dict[str, Any]]:
        """Start a new transcript with the system prompt; the first observation becomes a user message."""
        self._messages = [{"role": "system", "content": self.system_prompt}]
        self._pending, self._calls = None, 0
        observation, info = super().reset(seed=seed, options=options)
        return observation, {**info, "elided": self.elided}

    def step(self, action: Any) -> tuple[list, Any, bool, bool, dict[str, Any]]:
        """Record ``action`` as the assistant's message, step the env, and add the result messages."""
        self._pending = self._assistant_message(action)
        observation, reward, terminated, truncated, info = super().step(action)
        return observation, reward, terminated, truncated, {**info, "elided": self.elided}

    def observation(self, observation: dict[str, Any]) -> list[dict[str, Any]]:
        """Append the messages for ``observation``; return a copy of the transcript, fitted to the context budget."""
        if self._pending is None:
            self._messages.append({"role": "user", "content": observation["output"]})
        else:
            self._messages.append(self._pending)
            self._messages.extend(self._results(self._pending, observation))
            self._pending = None
        return self.fit(self.transcript)

    # -- context budget ----------------------------------------------------------------------------------
    def fit(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Shorten ``messages`` in place to the context budget (see the module docstring) and return them.

        Sets :attr:`elided` to the number of messages shortened.
        """
        self.elided = 0
        if self.context_tokens is None:
            return messages
        budget = self.context_tokens - self.reserve_tokens
        if self.count_tokens(messages) <= budget:
            return messages
        results = [i for i, m in enumerate(messages) if i >= 2 and m["role"] in ("tool", "user")]
        older = [i for i, m in enumerate(messages) if i >= 2 and m["role"] == "assistant"][:-1]
        steps = [(i, _elide_content) for i in results[:-1]] + [(i, _elide_arguments) for i in older]
        for index, elide in steps:
            if elide(messages[index]):
                self.elided += 1
                if self.count_tokens(messages) <= budget:
                    return messages
        if results:
            self.elided += self._cut_newest(messages, messages[results[-1]], budget)
        return messages

    def _cut_newest(self, messages: list[dict[str, Any]], newest: dict[str, Any], budget: int) -> int:
        """Cut the middle of the newest result, more each time, until the messages fit; 1 if it was cut."""
        original = newest.get("content") or ""
        chars = max(self.count_tokens(messages) - budget, 1)  # a token is at least one character
        while True:
            newest["content"] = original
            cut = _cut_middle(newest, chars)
            if not cut or chars >= len(original) or self.count_tokens(messages) <= budget:
                return int(cut)
            chars *= 2

    # -- message building --------------------------------------------------------------------------------
    def _next_id(self) -> str:
        self._calls += 1
        return f"call_{self._calls}"

    def _assistant_message(self, action: Any) -> dict[str, Any]:
        if isinstance(action, BaseModel):
            action = action.model_dump(mode="json", exclude_none=True)
        if isinstance(action, dict) and action.get("role") == "assistant":
            message: dict[str, Any] = {"role": "assistant", "content": content_text(action.get("content"))}
            calls = action.get("tool_calls")
            if isinstance(calls, list) and calls:
                message["tool_calls"] = [self._tool_call(c) for c in calls]
            if message.get("tool_calls") and not message["content"]:
                message["content"] = self.tool_content
            elif message["content"] is None:
                message["content"] = ""  # an empty reply: OpenAI rejects an assistant message with neither
            return message
        if isinstance(action, dict) and isinstance(action.get("tool"), str):
            arguments = {k: v for k, v in action.items() if k != "tool"}
            call = {"function": {"name": action["tool"], "arguments": arguments}}
            return {"role": "assistant", "content": self.tool_content, "tool_calls": [self._tool_call(call)]}
        if isinstance(action, dict) and ("function" in action or "name" in action):
            return {"role": "assistant", "content": self.tool_content, "tool_calls": [self._tool_call(action)]}
        if isinstance(action, (bytes, bytearray)):
            return {"role": "assistant", "content": bytes(action).decode("utf-8", errors="replace")}
        text = action if isinstance(action, str) else json.dumps(jsonable(action), ensure_ascii=False, default=str)
        return {"role": "assistant", "content": text}

    def _tool_call(self, call: Any) -> dict[str, Any]:
        """Normalise one tool call to ``{"id", "type": "function", "function": {"name", "arguments": str}}``."""
        call = call if isinstance(call, dict) else {}
        function = call.get("function") if isinstance(call.get("function"), dict) else call
        arguments = function.get("arguments", {})
        if not isinstance(arguments, str):
            arguments = json.dumps(jsonable(arguments), ensure_ascii=False, default=str)
        call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else self._next_id()
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": str(function.get("name")), "arguments": arguments},
        }

    @staticmethod
    def _content(observation: dict[str, Any]) -> str:
        text = str(observation["output"])
        code = int(observation.get("exit_code", -1))
        if observation.get("source") == _SOURCE_TOOL and code not in (-1, 0):
            text += f"\n[exit code: {code}]"
        return text

    def _results(self, assistant: dict[str, Any], observation: dict[str, Any]) -> list[dict[str, Any]]:
        content = self._content(observation)
        calls = assistant.get("tool_calls") or []
        if not calls:
            return [{"role": "user", "content": content}]
        return [{"role": "tool", "tool_call_id": call["id"], "content": content} for call in calls]


def _check_context(tool_content: Any, context_tokens: Any, reserve_tokens: Any, count_tokens: Any) -> None:
    if tool_content not in ("", None):
        raise ArgumentError(f"tool_content must be '' or None, got {tool_content!r}")
    if context_tokens is not None and (
        not isinstance(context_tokens, int) or isinstance(context_tokens, bool) or context_tokens < 1
    ):
        raise ArgumentError(f"context_tokens must be None or an int >= 1, got {context_tokens!r}")
    if not isinstance(reserve_tokens, int) or isinstance(reserve_tokens, bool) or reserve_tokens < 0:
        raise ArgumentError(f"reserve_tokens must be an int >= 0, got {reserve_tokens!r}")
    if context_tokens is not None and reserve_tokens >= context_tokens:
        raise ArgumentError(f"reserve_tokens ({reserve_tokens}) must be below context_tokens ({context_tokens})")
    if count_tokens is not None and not callable(count_tokens):
        raise ArgumentTypeError(f"count_tokens must be callable, got {type(count_tokens).__name__}")


def _marker(chars: int) -> str:
    return ELIDED.format(n=chars)


def _elide_content(message: dict[str, Any]) -> bool:
    """Replace a result's content by the marker; False when that would not make it shorter."""
    content = message.get("content") or ""
    if len(content) <= len(_marker(len(content))):
        return False
    message["content"] = _marker(len(content))
    return True


def _elide_arguments(message: dict[str, Any]) -> bool:
    """Replace long text and long string arguments of an older assistant message by markers (True: any)."""
    changed = _elide_content(message) if len(message.get("content") or "") > _KEEP_ARGUMENT_CHARS else False
    for call in message.get("tool_calls") or []:
        function = call["function"]
        try:
            arguments = json.loads(function["arguments"])
        except ValueError:
            arguments = None
        if not isinstance(arguments, dict):
            if len(function["arguments"]) > _KEEP_ARGUMENT_CHARS:
                function["arguments"] = json.dumps({"elided": _marker(len(function["arguments"]))})
                changed = True
            continue
        long = {k for k, v in arguments.items() if isinstance(v, str) and len(v) > _KEEP_ARGUMENT_CHARS}
        if long:
            arguments.update({k: _marker(len(arguments[k])) for k in long})
            function["arguments"] = json.dumps(arguments, ensure_ascii=False)
            changed = True
    return changed


def _cut_middle(message: dict[str, Any], chars: int) -> bool:
    """Cut about ``chars`` characters out of the middle of a result, marked; False when it is too short."""
    content = message.get("content") or ""
    keep = len(content) - chars - len(_marker(chars))
    if keep <= 0:
        return _elide_content(message)
    head = keep // 2
    message["content"] = content[:head] + _marker(len(content) - keep) + content[len(content) - (keep - head) :]
    return True
