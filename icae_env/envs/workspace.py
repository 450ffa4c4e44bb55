""":class:`WorkspaceEnv`: the environment of every task kind that gives the agent a sandboxed workspace.

The agent runs shell commands, edits files and asks the grounded User Agent; ``submit`` ends the episode and the
task kind evaluates a sanitised snapshot of the final workspace in fresh sandboxes. ``icae/ProjectBuild-v0``
(kind ``build``) and ``icae/Revision-v0`` (kind ``revision``) are thin subclasses; a new kind registers this class
with ``kind="<name>"`` (see :mod:`icae_env.registration`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from pydantic import ValidationError

from icae_env.actions import ActionParseError, Submit, parse_action
from icae_env.core import EvalContext, Score, TaskKind, WeightedReward
from icae_env.envs.base import IcaeEnv, StepOutcome
from icae_env.envs.state import Timing, WorkspaceEpisode
from icae_env.envs.tools import ToolOutcome, run_tool
from icae_env.errors import ConfigError, ResetNeeded
from icae_env.registration import DEFAULT_ROUTER
from icae_env.sandbox.snapshot import sandbox_snapshot
from icae_env.sandbox.spec import SandboxSpec
from icae_env.spaces import ActionSpace

__all__ = ["WorkspaceEnv"]


def _weights(reward_type: type[WeightedReward], reward: Any) -> WeightedReward:
    if isinstance(reward, reward_type):
        return reward
    if reward is not None and not isinstance(reward, Mapping):
        raise ConfigError(f"reward must be a {reward_type.__name__} or a mapping of its fields, got {reward!r}")
    try:
        return reward_type.model_validate(dict(reward or {}))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"reward: {where}: {first['msg']} (got {first.get('input')!r})") from None


class WorkspaceEnv(IcaeEnv[WorkspaceEpisode]):
    """A task of any kind in a sandboxed workspace: tools, questions, ``submit``; scored by the kind.

    ## Action Space
    :class:`~icae_env.spaces.ActionSpace`: a dict, action model or JSON string, one of ``bash(command,
    timeout?)``, ``write_file(path, content)``, ``str_replace(path, old, new)``, ``view(path, range?)``,
    ``ask(question)``, ``submit()`` (limits in :mod:`icae_env.actions`).

    ## Observation
    ``Dict(output=UnicodeText(201_000), source=Discrete(3) [0 tool, 1 user, 2 env], exit_code=Discrete(257,
    start=-1) [-1 when not a command], questions_left=Discrete(budget+1), step=Discrete(max_steps+1))``.

    ## Info
    ``task``, ``level``, ``action_error``, ``tool``, ``counters``, ``timing``; ``constraint_ids`` (the records
    a reply drew on), ``recovered`` (task-specific records it revealed for the first time) and ``fallback``
    (nothing matched) on every step (empty when the step asked nothing); ``router_errors`` (questions of the
    episode whose routing failed and got the fallback reply); on the final step ``score`` (the kind's
    :class:`~icae_env.core.Score` as JSON, None when a truncated episode is not scored) and ``episode_timing``.

    ## Reward
    0 per step; on the final step the kind's reward weights over the score's components.

    ## Termination/Truncation
    Terminated on ``submit``. Truncated at ``max_steps`` or after ``time_limit_s``; a truncated episode is still
    scored unless ``score_on_truncation=False``.

    Args:
        task: A task name, pack path, task object, or a sequence of them (one drawn per reset).
        level: ``L1``, ``L2``, ``L3`` or ``ground``.
        kind: The task kind (registered name or instance).
        sandbox: A :class:`~icae_env.sandbox.SandboxSpec` or a backend name; ``sandbox_options`` lie over it.
        sandbox_options: Backend options.
        budget: Clarification questions per episode.
        max_steps: Steps before truncation.
        time_limit_s: Wall-clock seconds before truncation (None: no limit).
        reward: Reward weights (the kind's reward type, or a dict of its fields).
        score_on_truncation: Whether a truncated episode is scored.
        router: User Agent router name.
        render_mode: None or ``"ansi"``.
        kind_options: Options of the kind when ``kind`` is a name.
        router_options: Keyword arguments of the router (``llm``: ``base_url``, ``model``, ``api_key``, ...).
    """

    exit_codes: ClassVar[int] = 257
    episode_type = WorkspaceEpisode

    def __init__(
        self,
        task: Any,
        level: str = "L1",
        *,
        kind: str | TaskKind = "build",
        sandbox: SandboxSpec | str = "local",
        sandbox_options: dict[str, Any] | None = None,
        budget: int = 16,
        max_steps: int = 200,
        time_limit_s: float | None = None,
        reward: Any = None,
        score_on_truncation: bool = True,
        router: str = DEFAULT_ROUTER,
        render_mode: str | None = None,
        kind_options: dict[str, Any] | None = None,
        router_options: dict[str, Any] | None = None,
    ) -> None:
        if isinstance(kind, str):
            from icae_env.kinds import make_kind

            kind = make_kind(kind, **(kind_options or {}))
        super().__init__(
            task, level, kind=kind, budget=budget, max_steps=max_steps, time_limit_s=time_limit_s, router=router,
            render_mode=render_mode, router_options=router_options,
        )  # fmt: skip
        self.sandbox = SandboxSpec.of(sandbox, sandbox_options)
        self.sandbox.make()  # fail fast on an option the backend rejects (nothing is started)
        self.reward_config = _weights(self.kind.reward_type, reward)
        self.score_on_truncation = bool(score_on_truncation)
        self.action_space = ActionSpace()

    # -- episode lifecycle -----------------------------------------------------------------------------------
    def _begin(self, state: WorkspaceEpisode) -> str:
        box = self.sandbox.make(language=state.task.language, hide=self.kind.hidden_paths(state.task))
        state.sandbox = box
        box.start()
        self.kind.setup(state.task, box)
        return self.kind.intro(state.task, state.level, self.budget)

    def _end_episode(self, state: WorkspaceEpisode) -> None:
        if state.sandbox is not None:
            state.sandbox.close()

    def _act(self, state: WorkspaceEpisode, action: Any) -> StepOutcome:
        started = time.perf_counter()
        state.counters["steps"] += 1
        try:
            parsed = parse_action(action)
        except ActionParseError as exc:
            return self._outcome(state, ToolOutcome(f"Action error: {exc}", "env", -1, str(exc)), "invalid", started)
        state.counters[parsed.tool] += 1
        if isinstance(parsed, Submit):
            done = ToolOutcome("Submitted; the workspace was scored.", "env", -1)
            return self._outcome(state, done, "submit", started, terminated=True)
        outcome = run_tool(parsed, state.sandbox, state.user_agent)
        state.counters["fallbacks"] = sum(t.fallback_triggered for t in state.user_agent.log.turns)
        return self._outcome(state, outcome, parsed.tool, started)

    def _outcome(
        self, state: WorkspaceEpisode, outcome: ToolOutcome, tool: str, started: float, terminated: bool = False
    ) -> StepOutcome:
        if outcome.action_error:
            state.counters["action_errors"] += 1
        reply = outcome.reply
        ids = reply.constraint_ids if reply else ()
        timing = Timing(outcome.sandbox_s, outcome.user_agent_s, 0.0, time.perf_counter() - started)
        state.timing = state.timing + timing
        info = {
            "tool": tool,
            "counters": dict(state.counters),
            "timing": timing,
            "constraint_ids": ids,
            "recovered": state.recover(ids),
            "fallback": bool(reply and reply.fallback),
        }
        return StepOutcome(
            outcome.output, outcome.source, outcome.exit_code, 0.0, terminated, info, outcome.action_error
        )

    def _finish(
        self,
        state: WorkspaceEpisode,
        outcome: StepOutcome,
        terminated: bool,
    ) -> tuple[float, dict[str, Any]]:
        started = time.perf_counter()
        score = self.evaluate() if terminated or self.score_on_truncation else None
        scoring_s = time.perf_counter() - started
        extra = Timing(0.0, 0.0, scoring_s, scoring_s)
        state.timing = state.timing + extra
        info = {
            "timing": outcome.info["timing"] + extra,
            "score": score.model_dump(mode="json") if score is not None else None,
            "episode_timing": state.timing,
        }
        return (score.reward if score is not None else 0.0), info

    # -- evaluation ------------------------------------------------------------------------------------------
    def _context(self) -> EvalContext:
        return EvalContext(sandbox=self.sandbox, reward=self.reward_config, episode=self._episodes)

    @contextmanager
    def _snapshot(self) -> Iterator[tuple[WorkspaceEpisode, Path]]:
        state = self._require_state()
        with sandbox_snapshot(state.sandbox) as snapshot:
            yield state, snapshot

    def evaluate(self) -> Score:
        """Score the workspace as it is now, as ``submit`` does (a sanitised snapshot; the episode goes on)."""
        with self._snapshot() as (state, snapshot):
            transcript = state.transcript(self.budget)
            return self.kind.evaluate(state.task, state.level, snapshot, transcript, self._context())

    def progress(self) -> float | None:
        """The kind's agent-visible progress on the workspace now (the Public pass rate for ``build`` tasks)."""
        with self._snapshot() as (state, snapshot):
            return self.kind.progress(state.task, state.level, snapshot, self._context())

    @property
    def workspace(self) -> Path:
        """Host path of the current workspace, for inspection and tests.

        Raises:
            ResetNeeded: before the first reset.
        """
        state = self._require_state()
        host = state.sandbox.host_workspace
        if host is None:
            raise ResetNeeded("this sandbox backend keeps its workspace off this host")
        return Path(host)

    def _info(self, state: WorkspaceEpisode, action_error: str | None) -> dict[str, Any]:
        info = super()._info(state, action_error)
        if state.step == 0:  # the reset info
            info.update(tool="reset", counters=dict(state.counters), timing=Timing())
        return info
