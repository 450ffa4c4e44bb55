"""``ChatObservations``: the episode as OpenAI chat messages, ready to send to a chat-completions endpoint.

The transcript is: a system prompt with the tool schema, the first observation (PRD and instructions) as a user
message, then per step the agent's assistant message and the result, as one ``tool`` message per tool call
(``tool_call_id`` set) or, for a plain-text action, as a ``user`` message.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces import Space
from pydantic import BaseModel

from icae_env.errors import ArgumentTypeError
from icae_env.run.trajectory import jsonable
from icae_env.wrappers.text_parsing import content_text
from icae_env.wrappers.tool_schema import check_text_env, check_tools, tool_instructions, tool_schemas

__all__ = ["ChatObservations", "Messages", "ROLES", "DEFAULT_SYSTEM_PROMPT", "assistant_turns"]

ROLES = ("system", "user", "assistant", "tool")
DEFAULT_SYSTEM_PROMPT = (
    "You are an autonomous agent in an icae-env environment. The first user message describes the task; read it "
    "carefully, ask the user about anything the description leaves open, and finish with submit.\n\n{tools}"
)
_SOURCE_TOOL = 0


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
        self, env: gym.Env, tools: Sequence[str] | None = None, system_prompt: str = DEFAULT_SYSTEM_PROMPT
    ) -> None:
        chosen = check_tools(tools)
        if not isinstance(system_prompt, str):
            raise ArgumentTypeError(f"system_prompt must be a str, got {type(system_prompt).__name__}")
        check_text_env(env, "ChatObservations")
        gym.utils.RecordConstructorArgs.__init__(
            self, tools=list(chosen) if tools is not None else None, system_prompt=system_prompt
        )
        gym.ObservationWrapper.__init__(self, env)
        self.tools = chosen
        self.system_prompt = system_prompt.replace("{tools}", tool_instructions(chosen))
        self.tool_definitions = tool_schemas(chosen)
        self.observation_space = Messages()
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
        return super().reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[list, Any, bool, bool, dict[str, Any]]:
        """Record ``action`` as the assistant's message, step the env, and add the result messages."""
        self._pending = self._assistant_message(action)
        return super().step(action)

    def observation(self, observation: dict[str, Any]) -> list[dict[str, Any]]:
        """Append the messages for ``observation`` and return a copy of the whole transcript."""
        if self._pending is None:
            self._messages.append({"role": "user", "content": observation["output"]})
        else:
            self._messages.append(self._pending)
            self._messages.extend(self._results(self._pending, observation))
            self._pending = None
        return self.transcript

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
            elif message["content"] is None:
                message["content"] = ""  # an empty reply: OpenAI rejects an assistant message with neither
            return message
        if isinstance(action, dict) and isinstance(action.get("tool"), str):
            arguments = {k: v for k, v in action.items() if k != "tool"}
            call = {"function": {"name": action["tool"], "arguments": arguments}}
            return {"role": "assistant", "content": None, "tool_calls": [self._tool_call(call)]}
        if isinstance(action, dict) and ("function" in action or "name" in action):
            return {"role": "assistant", "content": None, "tool_calls": [self._tool_call(action)]}
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
