"""The OpenEnv action, observation and state models of an icae-env environment.

:class:`IcaeAction` is either an icae tool call (``tool`` plus that tool's fields, exactly the dict that
``env.step`` takes in process) or ``text`` (handed to ``env.step`` as it is: a question or ``""`` for
``icae/Clarify-v0``, a JSON action, model output for an env that parses text). The fields are not checked
against the tool here: a malformed tool call is an agent mistake, so it comes back as an observation with
``info["action_error"]``, exactly as in process. :class:`IcaeObservation` carries the env's observation, the
step's reward, ``terminated`` / ``truncated`` / ``done`` and the step's ``info`` in its JSON form (what an
in-process agent is given; hidden task data is never in it).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from icae_env.serve._deps import Action, Observation, State

__all__ = ["IcaeAction", "IcaeObservation", "IcaeState"]

_TOOLS = "bash, write_file, str_replace, view, ask, submit"


class IcaeAction(Action):
    """One action: an icae tool call (``tool`` and its fields) or ``text``, never both."""

    tool: str | None = Field(default=None, description=f"the icae tool: {_TOOLS}")
    command: str | None = Field(default=None, description="bash: the shell command")
    timeout: float | None = Field(default=None, description="bash: seconds before the command is killed")
    path: str | None = Field(default=None, description="write_file / str_replace / view: workspace path")
    content: str | None = Field(default=None, description="write_file: the file's new content")
    old: str | None = Field(default=None, description="str_replace: the text to replace (exactly once)")
    new: str | None = Field(default=None, description="str_replace: its replacement")
    range: tuple[int, int] | None = Field(default=None, description="view: first and last line (1-based)")
    question: str | None = Field(default=None, description="ask: the clarification question")
    text: str | None = Field(default=None, description="instead of a tool call: the raw action given to env.step")

    @model_validator(mode="after")
    def _one_form(self) -> IcaeAction:
        if (self.tool is None) == (self.text is None):
            # a PydanticCustomError keeps the error JSON-able (OpenEnv's HTTP 422 answer holds ``errors()``)
            raise PydanticCustomError("action_form", "give either 'tool' (with that tool's fields) or 'text', not both")
        return self

    def to_env(self) -> Any:
        """The action as ``env.step`` takes it in process: the text, or the tool call's dict."""
        if self.text is not None:
            return self.text
        return self.model_dump(exclude_none=True, exclude={"metadata", "text"})


class IcaeObservation(Observation):
    """What one reset or step returns: the env's observation, the reward, the episode's end and the info."""

    output: str = Field(default="", description="tool output, User Agent reply or env message")
    source: int = Field(default=2, description="who answered: 0 tool, 1 user (the User Agent), 2 env")
    exit_code: int = Field(default=-1, description="the command's exit status; -1 when the step ran none")
    questions_left: int = Field(default=0, description="clarification questions left in the budget")
    step: int = Field(default=0, description="steps taken in the episode")
    terminated: bool = Field(default=False, description="the episode ended by the agent (submit, stop)")
    truncated: bool = Field(default=False, description="the episode hit max_steps or the time limit (scored)")
    info: dict[str, Any] = Field(default_factory=dict, description="the step's info (JSON), as given in process")


class IcaeState(State):
    """The session's episode: which env, task and level, how far it got, and its reward so far."""

    env_id: str = Field(default="", description="the registered icae env id served")
    task: str | None = Field(default=None, description="the episode's task id (None before the first reset)")
    level: str | None = Field(default=None, description="the episode's level")
    done: bool = Field(default=False, description="whether the episode is over (a reset starts the next one)")
    total_reward: float = Field(default=0.0, description="the sum of the episode's rewards so far")
