"""Gymnasium wrappers for icae-env environments, one concern per module.

Installed as ``icae_env.wrappers`` (the repository keeps them in its top-level ``wrappers/`` folder). A typical
LLM-agent stack, innermost first::

    env = icae_env.make("icae/ProjectBuild-v0", task="builtin/unidiff")
    env = RecordEpisode(env, "runs/trajectories")  # the env's own actions and observations, replayable
    env = ShapedReward(env)                         # dense terms in info["shaping"]
    env = TextActions(env)                          # raw model output -> one action
    env = ChatObservations(env)                     # observations as OpenAI chat messages

- :class:`TextActions` (:mod:`icae_env.wrappers.text_actions`): tool-call JSON, XML tags and fenced blocks to actions.
- :class:`ChatObservations` (:mod:`icae_env.wrappers.chat_observations`): role/content messages; :func:`tool_schemas`
  exports the tools as OpenAI function definitions.
- :class:`ShapedReward` (:mod:`icae_env.wrappers.shaped_reward`): recovered records, Public progress, fallback penalty.
- :class:`RecordEpisode` (:mod:`icae_env.wrappers.record_episode`): JSONL trajectories that replay.
"""

from __future__ import annotations

from icae_env.wrappers.chat_observations import ChatObservations, Messages, assistant_turns
from icae_env.wrappers.record_episode import RecordEpisode
from icae_env.wrappers.shaped_reward import ShapedReward
from icae_env.wrappers.text_actions import INVALID_ACTION, TextActions
from icae_env.wrappers.text_parsing import TextActionError, parse_text_action
from icae_env.wrappers.tool_schema import TOOL_NAMES, tool_schemas

__all__ = [
    "INVALID_ACTION",
    "TOOL_NAMES",
    "ChatObservations",
    "Messages",
    "RecordEpisode",
    "ShapedReward",
    "TextActionError",
    "TextActions",
    "assistant_turns",
    "parse_text_action",
    "tool_schemas",
]
