"""``icae/Clarify-v0``: the clarification skill alone. Read a PRD, ask a grounded user questions, stop.

No sandbox, no files, no scoring run: an episode is a PRD and a series of questions to the grounded User Agent of
:mod:`icae_env.user_agent`, rewarded for the task's own hidden requirements it recovers. Routers are deterministic,
so their answers are memoised per question (:class:`MemoRouter`): repeated candidate questions, the usual case in
training, cost a dictionary lookup.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from icae_env.actions import MAX_QUESTION_CHARS, Ask, Submit
from icae_env.envs.selection import TaskPool, check_level
from icae_env.envs.tools import MAX_OBSERVATION_CHARS, SOURCES, observation_space
from icae_env.errors import ResetNeeded
from icae_env.spaces import UnicodeText
from icae_env.tasks import Task
from icae_env.user_agent.base import Match, Router
from icae_env.user_agent.grounded import ROUTERS, GroundedUserAgent, documents_for, make_router

__all__ = ["ClarifyEnv", "MemoRouter", "STOP"]

#: The stop action: an empty (or whitespace-only) question. ``{"tool": "submit"}`` and ``Submit()`` stop too.
STOP = ""
_USER, _ENV = SOURCES.index("user"), SOURCES.index("env")
_STOP_TOOLS = ("submit", "stop")


class MemoRouter:
    """Wraps a router and remembers its answer to each question (exact: routers are deterministic).

    Args:
        inner: The router to ask on a miss.
        max_entries: Answers kept; the memo is emptied when it is full.
    """

    def __init__(self, inner: Router, max_entries: int = 65_536) -> None:
        if not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError(f"max_entries must be an int >= 1, got {max_entries!r}")
        self.inner, self.max_entries = inner, max_entries
        self.name = inner.name
        self._memo: dict[str, tuple[Match, ...]] = {}

    def route(self, question: str) -> list[Match]:
        """Return the inner router's matches for ``question``, computing them once."""
        hit = self._memo.get(question)
        if hit is None:
            if len(self._memo) >= self.max_entries:
                self._memo.clear()
            hit = self._memo[question] = tuple(self.inner.route(question))
        return list(hit)


@dataclass
class _Episode:
    """Everything that changes during one episode."""

    task: Task
    level: str
    agent: GroundedUserAgent
    targets: frozenset[str]
    recovered: dict[str, None] = field(default_factory=dict)
    step: int = 0
    done: bool = False
    last_output: str = ""


def _parse(action: Any) -> tuple[str | None, str | None]:
    """Return ``(question, error)``; ``(None, None)`` is the stop action."""
    if isinstance(action, str):
        question: Any = action
    elif isinstance(action, Ask):
        question = action.question
    elif isinstance(action, Submit):
        return None, None
    elif isinstance(action, dict) and action.get("tool") == "ask":
        question = action.get("question")
    elif isinstance(action, dict) and action.get("tool") in _STOP_TOOLS:
        return None, None
    else:
        what = f"tool {action.get('tool')!r}" if isinstance(action, dict) else type(action).__name__
        return None, f"Clarify-v0 takes a question (text or ask) or stop (empty text or submit); got {what}"
    if not isinstance(question, str):
        return None, f"the question must be text, got {type(question).__name__}"
    if len(question) > MAX_QUESTION_CHARS:
        return None, f"the question has {len(question)} characters; the limit is {MAX_QUESTION_CHARS}"
    return question.strip() or None, None


class ClarifyEnv(gym.Env):
    """Recover a task's hidden requirements by asking its grounded User Agent; no sandbox.

    ## Description
    Each episode is one task at one level. The first observation is the level's PRD; each question is answered
    by the grounded User Agent from the level's hidden records only (at most three points per reply, a fallback
    reply when nothing matches; unanswerable questions still use the budget). The agent decides what to ask and
    when to stop.

    ## Action Space
    :class:`~icae_env.spaces.UnicodeText` of at most 4,000 characters: the question. The empty (or
    whitespace-only) string :data:`STOP` ends the episode. ``{"tool": "ask", "question": ...}``,
    ``{"tool": "submit"}`` and the :class:`~icae_env.actions.Ask`/:class:`~icae_env.actions.Submit` models are
    accepted too, so that :class:`wrappers.TextActions` can drive the env. Anything else is an agent mistake: an
    observation with ``info["action_error"]`` that costs ``question_cost`` and a step, not a question.

    ## Observation
    The layout of ``icae/ProjectBuild-v0``: ``Dict(output=UnicodeText(201_000), source=Discrete(3) [1 user reply,
    2 PRD or env message], exit_code=Discrete(1, start=-1) [always -1], questions_left=Discrete(budget+1),
    step=Discrete(max_steps+1))``.

    ## Reward
    Per question: ``(newly recovered task-specific records) / (task-specific records of the level) -
    question_cost``; stop: 0. The return is ``task_coverage - question_cost * questions``. Task-specific records
    exclude ARCH/HARNESS boilerplate and test-case files (:attr:`HiddenConstraint.is_task_specific`). Every term
    is in ``info["reward_terms"]``; the final step's ``info["stats"]`` holds ICAE's interaction metrics.

    ## Termination/Truncation
    Terminated on stop or when the last question of the budget is answered. Truncated at ``max_steps``.

    ## Registered IDs
    ``icae/Clarify-v0``.

    ## Change log
    v0: initial version.

    Args:
        task: A task name (``builtin/<name>``), a pack path, a :class:`~icae_env.tasks.Task`, or a sequence of
            them (one is drawn per reset from the seeded generator).
        level: ``L1``, ``L2``, ``L3`` or ``ground``.
        budget: Questions per episode (>= 1).
        question_cost: Reward subtracted per question and per malformed action (>= 0).
        max_steps: Steps before truncation (>= 1).
        router: User Agent router name.
        memo_size: Router answers remembered per task and level (0: no memo).
        render_mode: None or ``"ansi"`` (``render()`` returns the last observation text).

    Example:
        >>> env = ClarifyEnv(task="builtin/dep-resolver", budget=3)
        >>> obs, info = env.reset(seed=0)
        >>> obs["output"].splitlines()[0][:24], obs["questions_left"], info["targets"]
        ('## Product Requirement D', 3, 10)
        >>> obs, reward, terminated, truncated, info = env.step("how are cycles reported?")
        >>> info["recovered"], round(reward, 2), obs["questions_left"]
        (('C004',), 0.08, 2)
        >>> env.step(STOP)[2]
        True
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        task: str | Task | Sequence[str | Task] = "builtin/config-lint",
        level: str = "L1",
        budget: int = 16,
        question_cost: float = 0.02,
        max_steps: int = 64,
        router: str = "lexical",
        memo_size: int = 65_536,
        render_mode: str | None = None,
    ) -> None:
        self._pool = TaskPool(task)
        check_level(level)
        self._check_numbers(budget, question_cost, max_steps, memo_size)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if router not in ROUTERS:
            make_router(router, ())  # raises ValueError naming the known routers
        self.level, self.budget, self.question_cost = level, budget, float(question_cost)
        self.max_steps, self.router, self.memo_size, self.render_mode = max_steps, router, memo_size, render_mode
        self.action_space = UnicodeText(MAX_QUESTION_CHARS)
        self.observation_space = observation_space(budget, max_steps, exit_codes=1)
        self._episode: _Episode | None = None
        self._agents: dict[tuple[str, str], GroundedUserAgent] = {}

    # -- configuration helpers -------------------------------------------------------------------------
    @staticmethod
    def _check_numbers(budget: Any, question_cost: Any, max_steps: Any, memo_size: Any) -> None:
        for name, value, low in (("budget", budget, 1), ("max_steps", max_steps, 1), ("memo_size", memo_size, 0)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
        if not isinstance(question_cost, (int, float)) or not math.isfinite(question_cost) or question_cost < 0:
            raise ValueError(f"question_cost must be a finite number >= 0, got {question_cost!r}")

    def _user_agent(self, task: Task, level: str) -> GroundedUserAgent:
        key = (f"{task.origin}:{task.id}", level)
        agent = self._agents.get(key)
        if agent is None:
            data = task.user_agent_data(level)
            router: Router = make_router(self.router, documents_for(data))
            if self.memo_size:
                router = MemoRouter(router, self.memo_size)
            agent = self._agents[key] = GroundedUserAgent(data, budget=self.budget, router=router)
        agent.reset()
        return agent

    # -- gymnasium API -----------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start an episode; ``options`` may set ``task`` (name, path or Task) and ``level``."""
        super().reset(seed=seed)
        task, level = self._pool.pick(options, self.level, self.np_random)
        agent = self._user_agent(task, level)
        targets = frozenset(c.constraint_id for c in agent.data.hidden_constraints if c.is_task_specific)
        self._episode = _Episode(task=task, level=level, agent=agent, targets=targets)
        return self._observation(task.prd(level), _ENV), self._info(None, None, (), (), False, 0.0, 0.0)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        """Ask one question or stop; see the class docstring for the contract."""
        ep = self._episode
        if ep is None or ep.done:
            raise ResetNeeded("call reset() before step()" if ep is None else "the episode is over; call reset()")
        ep.step += 1
        question, error = _parse(action)
        if error is not None:
            info = self._info(error, None, (), (), False, 0.0, -self.question_cost)
            return self._finish(ep, f"Action error: {error}", _ENV, -self.question_cost, False, info)
        if question is None:
            info = self._info(None, None, (), (), False, 0.0, 0.0)
            return self._finish(ep, "Stopped asking.", _ENV, 0.0, True, info)
        reply = ep.agent.ask(question)
        new = [c for c in reply.constraint_ids if c in ep.targets and c not in ep.recovered]
        ep.recovered.update(dict.fromkeys(new))
        recovery = len(new) / len(ep.targets) if ep.targets else 0.0
        cost = 0.0 if reply.refused else -self.question_cost
        info = self._info(None, question, reply.constraint_ids, tuple(new), reply.fallback, recovery, cost)
        return self._finish(ep, reply.text, _USER, recovery + cost, ep.agent.remaining <= 0, info)

    # -- helpers ---------------------------------------------------------------------------------------
    def _finish(self, ep: _Episode, text: str, source: int, reward: float, terminated: bool, info: dict) -> tuple:
        truncated = not terminated and ep.step >= self.max_steps
        ep.done = terminated or truncated
        if ep.done:
            info["stats"] = ep.agent.stats().model_dump()
        return self._observation(text, source), float(reward), terminated, truncated, info

    def _observation(self, text: str, source: int) -> dict[str, Any]:
        ep = self._episode
        assert ep is not None  # noqa: S101
        ep.last_output = text if len(text) <= MAX_OBSERVATION_CHARS else text[:MAX_OBSERVATION_CHARS]
        return {
            "output": ep.last_output,
            "source": source,
            "exit_code": -1,
            "questions_left": max(ep.agent.remaining, 0),
            "step": min(ep.step, self.max_steps),
        }

    def _info(
        self,
        action_error: str | None,
        question: str | None,
        constraint_ids: tuple[str, ...],
        recovered: tuple[str, ...],
        fallback: bool,
        recovery: float,
        cost: float,
    ) -> dict[str, Any]:
        ep = self._episode
        assert ep is not None  # noqa: S101
        return {
            "task": ep.task.id,
            "level": ep.level,
            "action_error": action_error,
            "question": question,
            "constraint_ids": constraint_ids,
            "recovered": recovered,
            "fallback": fallback,
            "targets": len(ep.targets),
            "task_coverage": len(ep.recovered) / len(ep.targets) if ep.targets else 0.0,
            "questions_used": len(ep.agent.log.turns),
            "reward_terms": {"recovery": recovery, "question_cost": cost},
        }

    def render(self) -> str | None:
        """Return the last observation text in ``ansi`` mode."""
        if self.render_mode != "ansi" or self._episode is None:
            return None
        return self._episode.last_output

    @property
    def task(self) -> Task:
        """The current task."""
        if self._episode is None:
            raise ResetNeeded("call reset() first")
        return self._episode.task

    def close(self) -> None:
        """Forget the episode; safe to call twice."""
        self._episode = None
        super().close()
