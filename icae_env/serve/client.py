""":class:`OpenEnvClient`: one WebSocket session of an ``icae-env serve openenv`` server (OpenEnv's ``EnvClient``).

The session is the server-side env and sandbox; it lives as long as the connection (or until the server closes
it for being idle). Use it synchronously (``with OpenEnvClient(url) as c: c.reset(); c.step(...)``) or with
``async with`` / ``await``, as every OpenEnv client. An error the server reports (no episode, the session full,
the session closed) is raised as OpenEnv raises it: a ``RuntimeError`` whose message has the server's text and
code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from icae_env.errors import ArgumentTypeError
from icae_env.serve._deps import EnvClient, StepResult
from icae_env.serve.models import IcaeAction, IcaeObservation, IcaeState

__all__ = ["OpenEnvClient"]


def as_action(action: Any) -> IcaeAction:
    """An :class:`IcaeAction` from an action model, a tool-call dict (``{"tool": "bash", ...}``) or text.

    Raises:
        ArgumentTypeError: for anything else.
        pydantic.ValidationError: for a dict with a key the action model lacks, or with neither/both forms.
    """
    if isinstance(action, IcaeAction):
        return action
    if isinstance(action, str):
        return IcaeAction(text=action)
    if isinstance(action, Mapping):
        return IcaeAction.model_validate(dict(action))
    raise ArgumentTypeError(f"action must be an IcaeAction, a dict or a str, got {type(action).__name__}")


class OpenEnvClient(EnvClient[IcaeAction, IcaeObservation, IcaeState]):
    """A client of an icae env served through OpenEnv: ``reset(seed=, task=, level=)``, ``step``, ``state``, ``close``.

    ``step`` takes an :class:`IcaeAction`, a tool-call dict or text; each returns a ``StepResult`` whose
    ``observation`` is an :class:`IcaeObservation` (``output``, ``source``, ``exit_code``, ``questions_left``,
    ``step``, ``terminated``, ``truncated``, ``info``) and whose ``reward`` / ``done`` are the step's.

    Args:
        base_url: The server's URL (``http://127.0.0.1:8000``; ``ws://`` works too).
        message_timeout_s: Seconds to wait for one answer (a ``submit`` scores the workspace first).
        **kwargs: Other arguments of OpenEnv's ``EnvClient`` (``connect_timeout_s``, ``headers``, ...).
    """

    def __init__(self, base_url: str, *, message_timeout_s: float = 3600.0, **kwargs: Any) -> None:
        super().__init__(base_url, message_timeout_s=message_timeout_s, **kwargs)

    def _step_payload(self, action: Any) -> dict[str, Any]:
        return as_action(action).model_dump(exclude_none=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult:
        fields = {**payload.get("observation", {}), "reward": payload.get("reward"), "done": payload.get("done", False)}
        observation = IcaeObservation.model_validate(fields)
        return StepResult(
            observation=observation, reward=observation.reward, done=observation.done, metadata=payload.get("metadata")
        )

    def _parse_state(self, payload: dict[str, Any]) -> IcaeState:
        return IcaeState.model_validate(payload)
