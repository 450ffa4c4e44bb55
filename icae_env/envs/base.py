"""The base of every icae-env environment: :class:`IcaeEnv`, generic in its per-episode state.

:class:`IcaeEnv` owns what the environments share: the task pool and seeded task choice, the spaces, step counting
and truncation, the grounded User Agent per task and level, the records an episode recovered, render, close (safe
twice), the info header and the privileged channel :meth:`IcaeEnv.cheat`. Subclasses implement ``_begin`` (start an
episode, return its first text) and ``_act`` (one action), and may extend ``_finish`` (the final step) and
``_end_episode`` (release its resources). The contract types it works with are in :mod:`icae_env.core`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import gymnasium as gym

from icae_env.core import Solution, TaskKind, Transcript
from icae_env.errors import ArgumentError, ResetNeeded, check_int
from icae_env.kinds import TaskPool, check_level, make_kind
from icae_env.registration import DEFAULT_ROUTER
from icae_env.spaces import MAX_OBSERVATION_CHARS, SOURCES, observation_space
from icae_env.user_agent.grounded import check_router, env_router_options, router_failures, user_agent_for

__all__ = ["Episode", "IcaeEnv", "StepOutcome"]


@dataclass
class Episode:
    """What changes during one episode; rebuilt on every reset, never shared between episodes."""

    task: Any
    level: str
    user_agent: Any
    targets: frozenset[str] = frozenset()
    recovered: dict[str, None] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    router_failures_before: int = 0
    step: int = 0
    done: bool = False
    last_output: str = ""

    def transcript(self, budget: int) -> Transcript:
        """Return the episode's :class:`Transcript` so far."""
        return Transcript(budget=budget, turns=tuple(self.user_agent.log.turns), steps=self.step)

    def recover(self, constraint_ids: Sequence[str]) -> tuple[str, ...]:
        """Mark the task-specific records among ``constraint_ids`` recovered; return the newly recovered ones."""
        new = tuple(c for c in dict.fromkeys(constraint_ids) if c in self.targets and c not in self.recovered)
        self.recovered.update(dict.fromkeys(new))
        return new


@dataclass
class StepOutcome:
    """What a subclass's :meth:`IcaeEnv._act` produced.

    Attributes:
        text: Observation text.
        source: One of :data:`SOURCES`.
        exit_code: The command's exit status (-1 when not a command).
        reward: The step's reward (before any final evaluation).
        terminated: Whether the action ended the episode (submit, stop, last question).
        info: Step info beyond the header.
        action_error: Why the action could not be carried out (None when it could).
    """

    text: str
    source: str = "env"
    exit_code: int = -1
    reward: float = 0.0
    terminated: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    action_error: str | None = None


_E = TypeVar("_E", bound=Episode)


class IcaeEnv(gym.Env[dict, Any], Generic[_E]):
    """Base of every icae-env environment (see the module docstring for what it owns).

    It is generic in its episode state: a subclass with more per-episode state extends :class:`Episode` and sets
    :attr:`episode_type`.

    Args:
        task: A task name, pack path, task object, or a non-empty sequence of them (one drawn per reset).
        level: Default level.
        kind: The task kind (a registered name) or a kind instance.
        budget: Clarification questions per episode.
        max_steps: Steps before truncation (>= 1).
        time_limit_s: Wall-clock seconds before truncation (None: no limit).
        router: User Agent router name.
        router_options: Keyword arguments of the router's constructor (e.g. ``base_url``/``model`` of ``llm``),
            over :data:`~icae_env.user_agent.grounded.ENV_ROUTER_DEFAULTS` (``llm`` falls back on errors).
        memo_size: Router answers remembered per task and level (0: none; routers are deterministic).
        render_mode: None or ``"ansi"`` (``render()`` returns the last observation text).

    Raises:
        RouterOptionError: for a router option the router does not take (naming the accepted ones).
        EndpointConfigError: for ``router="llm"`` without a base URL or model (option or ``OPENAI_*`` variable).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    exit_codes: ClassVar[int] = 1
    min_budget: ClassVar[int] = 0
    episode_type: type[Episode] = Episode
    #: Observation text is cut to this many characters (the tools cut long outputs earlier, with a marker).
    max_output_chars: ClassVar[int] = MAX_OBSERVATION_CHARS + 1000

    def __init__(
        self,
        task: Any,
        level: str = "L1",
        *,
        kind: str | TaskKind = "build",
        budget: int = 16,
        max_steps: int = 200,
        time_limit_s: float | None = None,
        router: str = DEFAULT_ROUTER,
        router_options: dict[str, Any] | None = None,
        memo_size: int = 0,
        render_mode: str | None = None,
    ) -> None:
        self.kind: TaskKind = make_kind(kind) if isinstance(kind, str) else kind
        self._pool = TaskPool(task, self.kind)
        check_level(level)
        self.budget, self.max_steps = check_int("budget", budget, self.min_budget), check_int("max_steps", max_steps, 1)
        self.memo_size = check_int("memo_size", memo_size, 0)
        if time_limit_s is not None and not (isinstance(time_limit_s, (int, float)) and time_limit_s > 0):
            raise ArgumentError(f"time_limit_s must be > 0 or None, got {time_limit_s!r}")
        if render_mode not in (None, "ansi"):
            raise ArgumentError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.level, self.time_limit_s, self.render_mode = level, time_limit_s, render_mode
        self.router = check_router(router)
        self.router_options = env_router_options(self.router, router_options)
        self.observation_space = observation_space(budget, max_steps, exit_codes=self.exit_codes)
        self._state: _E | None = None
        self._agents: dict[tuple[str, str], Any] = {}
        self._episodes = 0

    # -- what subclasses implement -------------------------------------------------------------------------
    def _begin(self, state: _E) -> str:
        """Start the episode of ``state`` (its resources); return the first observation's text."""
        raise NotImplementedError

    def _act(self, state: _E, action: Any) -> StepOutcome:
        """Carry out one action; agent mistakes come back as outcomes with ``action_error`` set."""
        raise NotImplementedError

    def _finish(self, state: _E, outcome: StepOutcome, terminated: bool) -> tuple[float, dict[str, Any]]:
        """The last step of an episode: return its reward and extra info (default: the step's own reward)."""
        return outcome.reward, {}

    def _end_episode(self, state: _E) -> None:
        """Release the resources of a finished or abandoned episode."""

    # -- gymnasium API -------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start an episode; ``options`` may set ``task`` (name, path or task object) and ``level``."""
        super().reset(seed=seed)
        task, level = self._pool.pick(options, self.level, self.np_random)
        self._close_episode()
        agent = self._user_agent(task, level)
        targets = frozenset(c.constraint_id for c in agent.data.hidden_constraints if c.is_task_specific)
        self._episodes += 1
        state: _E = self.episode_type(task=task, level=level, user_agent=agent, targets=targets)  # type: ignore[assignment]
        state.router_failures_before = router_failures(agent.router)
        try:
            text = self._begin(state)
        except BaseException:
            self._end_episode(state)
            raise
        self._state = state
        return self._observation(state, text, "env", -1), self._info(state, None)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        """Carry out one action; see the subclass docstring for the contract."""
        state = self._state
        if state is None or state.done:
            raise ResetNeeded("call reset() before step()" if state is None else "the episode is over; call reset()")
        state.step += 1
        outcome = self._act(state, action)
        terminated = outcome.terminated
        over_time = self.time_limit_s is not None and time.monotonic() - state.started >= self.time_limit_s
        truncated = not terminated and (state.step >= self.max_steps or over_time)
        reward, extra = outcome.reward, dict[str, Any]()
        if terminated or truncated:
            state.done = True
            reward, extra = self._finish(state, outcome, terminated)
        info = {**self._info(state, outcome.action_error), **outcome.info, **extra}
        observation = self._observation(state, outcome.text, outcome.source, outcome.exit_code)
        return observation, reward, terminated, truncated, info

    def cheat(self) -> Solution:
        """The current task's privileged :class:`Solution` (for oracle agents; see :mod:`icae_env.run`)."""
        state = self._require_state()
        return self.kind.cheat(state.task, state.level)

    def render(self) -> str | None:
        """Return the last observation text in ``ansi`` mode."""
        return self._state.last_output if self.render_mode == "ansi" and self._state is not None else None

    @property
    def task(self) -> Any:
        """The current task (privileged: hidden data included; for tools and tests, never for policies)."""
        return self._require_state().task

    def close(self) -> None:
        """Release the episode's resources and the kind's; safe to call twice."""
        self._close_episode()
        self.kind.close()
        super().close()

    # -- shared helpers ------------------------------------------------------------------------------------
    def _require_state(self) -> _E:
        if self._state is None:
            raise ResetNeeded("call reset() first")
        return self._state

    def _close_episode(self) -> None:
        state, self._state = self._state, None
        if state is not None:
            self._end_episode(state)

    def _user_agent(self, task: Any, level: str) -> Any:
        """The grounded User Agent of ``task`` at ``level`` (built once, reset for every episode)."""
        key = (f"{task.origin}:{task.id}", level)
        if key not in self._agents:
            data = task.user_agent_data(level)
            self._agents[key] = user_agent_for(data, self.budget, self.router, self.memo_size, self.router_options)
        agent = self._agents[key]
        agent.reset()
        return agent

    def _observation(self, state: _E, text: str, source: str, exit_code: int) -> dict[str, Any]:
        state.last_output = text[: self.max_output_chars]
        return {
            "output": state.last_output,
            "source": SOURCES.index(source),
            "exit_code": int(exit_code),
            "questions_left": max(state.user_agent.remaining, 0),
            "step": min(state.step, self.max_steps),
        }

    def _info(self, state: _E, action_error: str | None) -> dict[str, Any]:
        errors = router_failures(state.user_agent.router) - state.router_failures_before
        info = {"task": state.task.id, "level": state.level, "action_error": action_error, "router_errors": errors}
        return info
