"""``TextActions``: the env takes raw model output (native tool calls, JSON, XML tags, fenced blocks) as actions.

With a :class:`~wrappers.RecordEpisode` below it, each step line of the trajectory also gets the model's raw text
and, for text without a valid action, the error the model was shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym

from icae_env.errors import ArgumentError, ArgumentTypeError
from icae_env.spaces import UnicodeText
from icae_env.wrappers.record_episode import RecordEpisode
from icae_env.wrappers.text_parsing import DEFAULT_MAX_CHARS, TextActionError, content_text, parse_text_action
from icae_env.wrappers.tool_schema import check_text_env, check_tools

__all__ = ["TextActions", "INVALID_ACTION", "raw_text"]

#: What the wrapped env receives when the text holds no valid action: an action with an unknown tool, which every
#: icae-env env answers with an action-error observation (so steps, budgets and truncation still count).
INVALID_ACTION: dict[str, str] = {"tool": "invalid"}


class TextActions(gym.ActionWrapper, gym.utils.RecordConstructorArgs):
    r"""Parse raw model output into one icae-env action (see :mod:`wrappers.text_parsing` for the formats).

    A message with no valid action (no call, two calls, an unknown tool, malformed JSON, arguments over the
    limits, bytes that are not UTF-8 ...) is an agent mistake, not an exception: the wrapped env takes a step with
    :data:`INVALID_ACTION`, and the observation's ``output`` and ``info["action_error"]`` carry the parser's
    message; ``info["action_hint"]`` says how to do better. The episode goes on.

    The action space is :class:`~icae_env.spaces.UnicodeText` (``max_chars``); UTF-8 bytes, OpenAI
    assistant-message or tool-call dicts and action dicts are accepted as well. Put it inside
    :class:`~wrappers.ChatObservations` and outside :class:`~wrappers.RecordEpisode`.

    Args:
        env: An icae-env env (observations are dicts with an ``output`` text).
        tools: Tool names the model may call (default: every tool).
        max_chars: Longest accepted message.
        prefix: Text the chat template's generation prompt ends with and the model's output continues, read as
            the start of every text message: ``"<think>\n"`` when the template opens the reasoning block
            (DeepSeek-R1, Qwen3 thinking, GLM-4.7), so that output cut inside it is an action error.

    Example:
        >>> from icae_env.envs.clarify import ClarifyEnv
        >>> env = TextActions(ClarifyEnv(task="builtin/dep-resolver", budget=4), tools=("ask", "submit"))
        >>> _ = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step("<ask>How are cycles reported?</ask>")
        >>> info["recovered"], info["action_error"]
        (('C004',), None)
        >>> obs, reward, terminated, truncated, info = env.step("<bash>ls</bash>")
        >>> info["action_error"]
        "tool 'bash' is not available here; available tools: ask, submit"
        >>> obs["output"].splitlines()[1][:40]
        'Hint: Send exactly one tool call per mes'
        >>> env.step('{"name": "submit", "arguments": {}}')[2]
        True
    """

    def __init__(
        self, env: gym.Env, tools: Sequence[str] | None = None, max_chars: int = DEFAULT_MAX_CHARS, prefix: str = ""
    ) -> None:
        chosen = check_tools(tools)
        if not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 1:
            raise ArgumentError(f"max_chars must be an int >= 1, got {max_chars!r}")
        if not isinstance(prefix, str):
            raise ArgumentTypeError(f"prefix must be a str, got {type(prefix).__name__}")
        check_text_env(env, "TextActions")
        gym.utils.RecordConstructorArgs.__init__(
            self, tools=list(chosen) if tools is not None else None, max_chars=max_chars, prefix=prefix
        )
        gym.ActionWrapper.__init__(self, env)
        self.tools, self.max_chars, self.prefix = chosen, max_chars, prefix
        self.action_space = UnicodeText(max_chars)
        self._recorder = _recorder_below(env)

    def action(self, action: Any) -> dict[str, Any]:
        """Return the action dict in ``action`` (raw model output).

        Raises:
            TextActionError: when the output holds no single valid action.
        """
        return parse_text_action(action, self.tools, self.max_chars, self.prefix)

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Step with the parsed action, or report the parse error as the observation (the episode goes on)."""
        try:
            parsed = self.action(action)
        except TextActionError as error:
            if self._recorder is not None:
                self._recorder.annotate(raw_text(action), error.message, error.hint)
            return self._invalid(error)
        if self._recorder is not None:
            self._recorder.annotate(raw_text(action))
        observation, reward, terminated, truncated, info = self.env.step(parsed)
        return observation, reward, terminated, truncated, {**info, "action_hint": None}

    def _invalid(self, error: TextActionError) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(dict(INVALID_ACTION))
        observation = {**observation, "output": f"Action error: {error.message}\nHint: {error.hint}"}
        return (
            observation,
            reward,
            terminated,
            truncated,
            {**info, "action_error": error.message, "action_hint": error.hint},
        )


def raw_text(action: Any) -> str | None:
    """The model's text in ``action``: the text itself, or an assistant message's content (None for an action dict).

    Example:
        >>> raw_text("<bash>ls</bash>"), raw_text({"role": "assistant", "content": None}), raw_text({"tool": "submit"})
        ('<bash>ls</bash>', '', None)
    """
    if isinstance(action, str):
        return action
    if isinstance(action, (bytes, bytearray)):
        return bytes(action).decode("utf-8", errors="replace")
    if isinstance(action, dict) and action.get("role") == "assistant":
        return content_text(action.get("content")) or ""
    return None


def _recorder_below(env: gym.Env) -> RecordEpisode | None:
    """The :class:`RecordEpisode` among the wrappers below, if any."""
    while isinstance(env, gym.Wrapper):
        if isinstance(env, RecordEpisode):
            return env
        env = env.env
    return None
