"""The contract of icae-env: task kinds, scores, solutions, transcripts, and the environment every env builds on.

An **episode** is one task at one level. The agent sees what the task kind's :meth:`TaskKind.intro` gives and
what its actions produce, never the task's hidden data (User Agent records, hidden test cases, acceptance
criteria, golden solution); a grounded User Agent answers its questions from the level's records only.

A **task kind** (:class:`TaskKind`) is the plug-in for one family of tasks (``build``: ICAE-Bench project
building; ``revision``: Co-Design Bench app revisions). It lists and loads its tasks, fills a fresh workspace
(*setup*), writes the first observation (*intro*), scores a finished episode (*evaluate*: a pure function of task,
level, a sanitised snapshot of the final workspace and the :class:`Transcript`, returning a :class:`Score`), hands
oracle agents the privileged :class:`Solution` (*cheat*, after BrowserGym), names the host paths that must stay
invisible inside sandboxes and releases what it holds (*close*). Kinds are chosen by name from
:data:`icae_env.registration.TASK_KINDS`; adding one is one module plus one registration row.

A **score** carries one header (kind, reward, components, interaction, duration); each kind's score type adds its
fields and names the :class:`~icae_env.run.EpisodeResult` fields it fills (:meth:`Score.record`). The reward is
the kind's :class:`WeightedReward` over the components; ``info["score"]`` is the score's JSON form.

:class:`IcaeEnv`, the base of every environment, owns what they share: the task pool and seeded task choice, the
spaces, step counting and truncation, the grounded User Agent per task and level, the records an episode
recovered, render, close (safe twice), the info header and the privileged channel :meth:`IcaeEnv.cheat`.
Subclasses implement ``_begin`` (start an episode, return its first text) and ``_act`` (one action), and may
extend ``_finish`` (the final step) and ``_end_episode`` (release its resources).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

import gymnasium as gym
from pydantic import BaseModel, ConfigDict

from icae_env.errors import ArgumentError, ResetNeeded, check_int
from icae_env.kinds import TaskPool, check_level, make_kind
from icae_env.registration import DEFAULT_ROUTER
from icae_env.sandbox.base import Sandbox
from icae_env.sandbox.spec import SandboxSpec
from icae_env.spaces import MAX_OBSERVATION_CHARS, SOURCES, observation_space
from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.grounded import check_router, user_agent_for
from icae_env.user_agent.metrics import InteractionLog, InteractionStats, Turn

__all__ = ["Episode", "EvalContext", "IcaeEnv", "Score", "Solution", "StepOutcome", "TaskKind", "Transcript"]
__all__ += ["WeightedReward"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class WeightedReward(_Frozen):
    """Base of reward configurations: frozen weights whose field names are score components."""

    def total(self, components: Mapping[str, float]) -> float:
        """Return the weighted sum of ``components`` (components without a weight count 0)."""
        return float(sum(getattr(self, name, 0.0) * value for name, value in components.items()))


class Transcript(_Frozen):
    """What happened between the agent and the User Agent in one episode (an input of evaluation).

    Attributes:
        budget: Questions the episode allowed.
        turns: The counted questions with their replies and the records each drew on.
        steps: Steps taken.
    """

    budget: int
    turns: tuple[Turn, ...] = ()
    steps: int = 0

    def stats(self, data: UserAgentData) -> InteractionStats:
        """Return ICAE's interaction metrics of this transcript against the records of ``data``."""
        return InteractionLog(
            constraints=data.hidden_constraints, max_interactions=self.budget, turns=list(self.turns)
        ).stats()


class Score(_Frozen):
    """The header every task kind's score shares; ``info["score"]`` is its JSON form.

    Attributes:
        kind: The task kind that scored the episode.
        reward: The episode reward: the env's :class:`WeightedReward` over ``components``.
        components: Every reward component, each in 0..1.
        interaction: ICAE's interaction metrics of the episode.
        duration_s: Seconds the evaluation took (a measurement; excluded from replays' comparisons).
    """

    kind: str
    reward: float = 0.0
    components: dict[str, float] = {}
    interaction: InteractionStats | None = None
    duration_s: float = 0.0

    def record(self) -> dict[str, Any]:
        """Return the :class:`~icae_env.run.EpisodeResult` fields of this kind (the run layer adds the header's)."""
        return {}


class Solution(_Frozen):
    """The privileged solution of one task at one level: what an oracle agent may be handed (BrowserGym's cheat).

    Attributes:
        questions: Questions that reveal the level's hidden records, task-specific ones first.
        actions: Actions (dicts for ``env.step``) that deliver the golden solution; ``submit`` is not included.
    """

    questions: tuple[str, ...] = ()
    actions: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class EvalContext:
    """What evaluation may use besides task, level, snapshot and transcript.

    Attributes:
        sandbox: The sandbox spec for fresh sandboxes (scoring runs the delivery in new ones).
        reward: The reward weights (of the kind's reward type).
        episode: Which episode of this env it is (1-based; names per-episode evidence directories).
    """

    sandbox: SandboxSpec
    reward: WeightedReward
    episode: int = 1


@runtime_checkable
class TaskKind(Protocol):
    """A family of tasks: the plug-in interface (see the module docstring). Instances are made per env.

    Its task objects are frozen data the envs read only through ``id``, ``language``, ``origin``, ``levels``,
    ``prd(level)`` and ``user_agent_data(level)``; everything else about them is the kind's business.

    Attributes:
        name: The kind's registered name.
        task_type: The class of its task objects.
        reward_type: The class of its reward weights (the env's ``reward=`` argument).
        score_type: The class of its scores.
    """

    name: ClassVar[str]
    task_type: ClassVar[type]
    reward_type: ClassVar[type[WeightedReward]]
    score_type: ClassVar[type[Score]]

    def list_tasks(self) -> list[str]:
        """Names of the kind's built-in tasks (what its suite word expands to)."""

    def owns(self, ref: str) -> bool:
        """Whether the task name or pack path ``ref`` is one of this kind's tasks."""

    def load(self, ref: str | Path) -> Any:
        """Load a task by name or pack path (raises ``TaskNotFoundError`` / ``TaskValidationError``)."""

    def ref(self, task: Any) -> str:
        """A name or path that :meth:`load` turns back into ``task`` (what trajectories record)."""

    def setup(self, task: Any, box: Sandbox) -> None:
        """Fill the fresh, started workspace of an episode (starting files, attachments)."""

    def intro(self, task: Any, level: str, budget: int) -> str:
        """The first observation's text: what the agent is told."""

    def evaluate(self, task: Any, level: str, snapshot: Path, transcript: Transcript, context: EvalContext) -> Score:
        """Score a finished episode from a sanitised snapshot of its final workspace (never the live one)."""

    def progress(self, task: Any, level: str, snapshot: Path, context: EvalContext) -> float | None:
        """A measure of progress the agent can see for itself (ICAE's Public pass rate); None when there is none."""

    def cheat(self, task: Any, level: str) -> Solution:
        """The privileged solution, for oracle agents only."""

    def hidden_paths(self, task: Any) -> tuple[Path, ...]:
        """Host paths that must stay invisible inside the agent's sandbox (the task pack, the golden solution)."""

    def close(self) -> None:
        """Release what the kind holds for its env (temporary evidence ...); safe to call twice."""


@dataclass
class Episode:
    """What changes during one episode; rebuilt on every reset, never shared between episodes."""

    task: Any
    level: str
    user_agent: Any
    targets: frozenset[str] = frozenset()
    recovered: dict[str, None] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
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
        memo_size: Router answers remembered per task and level (0: none; routers are deterministic).
        render_mode: None or ``"ansi"`` (``render()`` returns the last observation text).
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
            self._agents[key] = user_agent_for(task.user_agent_data(level), self.budget, self.router, self.memo_size)
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
        return {"task": state.task.id, "level": state.level, "action_error": action_error}
