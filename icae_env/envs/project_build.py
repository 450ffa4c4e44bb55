"""``icae/ProjectBuild-v0``: build a project from a fuzzy PRD, asking a grounded user for hidden requirements."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gymnasium as gym

from icae_env.actions import ActionParseError, Submit, parse_action
from icae_env.envs.reward import RewardConfig, reward_components, score_info
from icae_env.envs.selection import TaskPool, check_level
from icae_env.envs.state import EpisodeState, Timing
from icae_env.envs.tools import SOURCES, ToolOutcome, observation_space, run_tool
from icae_env.errors import ResetNeeded
from icae_env.sandbox import make_sandbox
from icae_env.sandbox.base import Sandbox
from icae_env.sandbox.session_box import TEMP_PREFIX
from icae_env.sandbox.snapshot import take_snapshot
from icae_env.scoring import ScoreLimits, ScoreReport, score
from icae_env.spaces import ActionSpace
from icae_env.tasks import Task
from icae_env.user_agent.grounded import GroundedUserAgent

__all__ = ["ProjectBuildEnv", "INTRO", "final_workspace"]

INTRO = """{prd}
---
You are building this project in an empty workspace (the shell starts in it) with a {language} runtime and no
network.
Tools: bash(command, timeout?), write_file(path, content), str_replace(path, old, new), view(path, range?),
ask(question), submit(). Paths are relative to the workspace root.
Ask the user clarification questions with ask(question): you have {budget} questions, and questions the user
cannot answer still count. Deliver rcb_tests/test.sh as the PRD describes; submit() scores the workspace on
hidden tests in a fresh sandbox and ends the episode.
"""


@contextmanager
def final_workspace(box: Sandbox) -> Iterator[Path]:
    """Yield a sanitised snapshot of ``box``'s workspace as it is now (see :mod:`icae_env.sandbox.snapshot`).

    Scoring the snapshot keeps the result a function of the workspace at submit (background processes cannot
    change it) and keeps pipes, sockets and outward symlinks the agent made away from the scorer.
    """
    with tempfile.TemporaryDirectory(prefix=f"{TEMP_PREFIX}{os.getpid()}-snapshot-") as scratch:
        source = getattr(box, "host_workspace", None)
        if source is None:
            box.copy_out(".", Path(scratch) / "raw")
            source = Path(scratch) / "raw"
        yield take_snapshot(Path(source), Path(scratch) / "ws").root


class ProjectBuildEnv(gym.Env):
    """Build a repository from a fuzzy PRD; the delivery is scored black-box on hidden test tiers.

    ## Description
    Each episode is one task at one level (L1 vaguest .. L3, or ground). The workspace starts empty (or with the
    task's starting files). The agent runs shell commands, edits files and asks a grounded User Agent that
    answers only from the level's hidden records; ``submit`` scores the workspace exactly as ICAE-Bench does.

    ## Action Space
    :class:`~icae_env.spaces.ActionSpace`: a dict, action model or JSON string, one of ``bash(command,
    timeout?)``, ``write_file(path, content)``, ``str_replace(path, old, new)``, ``view(path, range?)``,
    ``ask(question)``, ``submit()`` (limits in :mod:`icae_env.actions`).

    ## Observation
    ``Dict(output=UnicodeText(200_000), source=Discrete(3) [0 tool, 1 user, 2 env], exit_code=Discrete(257,
    start=-1) [-1 when not a command], questions_left=Discrete(budget+1), step=Discrete(max_steps+1))``.

    ## Reward
    0 per step; on the final step :class:`~icae_env.envs.reward.RewardConfig` weights (default
    ``overall + 0.2 * task_coverage``). ``info["score"]`` holds every component, tier and interaction metric.

    ## Termination/Truncation
    Terminated on ``submit``. Truncated at ``max_steps`` or after ``time_limit_s`` wall-clock seconds; a
    truncated episode is still scored unless ``score_on_truncation=False``.

    ## Registered IDs
    ``icae/ProjectBuild-v0``.

    ## Change log
    v0: initial version.

    Args:
        task: A task name (``builtin/<name>``), a pack path, a :class:`~icae_env.tasks.Task`, or a sequence of
            them (one is drawn per reset from the seeded generator).
        level: ``L1``, ``L2``, ``L3`` or ``ground``.
        sandbox: Sandbox backend name; ``sandbox_options`` are passed to it.
        budget: Clarification questions per episode.
        max_steps: Steps before truncation.
        time_limit_s: Wall-clock seconds before truncation (None: no limit).
        reward: Reward weights (a :class:`RewardConfig` or a dict of its fields).
        score_on_truncation: Whether a truncated episode is scored.
        router: User Agent router name.
        score_limits: Time limits of the scorer.
        render_mode: None or ``"ansi"`` (``render()`` returns the last observation text).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        task: str | Task | Sequence[str | Task] = "builtin/config-lint",
        level: str = "L1",
        sandbox: str = "local",
        sandbox_options: dict[str, Any] | None = None,
        budget: int = 16,
        max_steps: int = 200,
        time_limit_s: float | None = None,
        reward: RewardConfig | dict[str, float] | None = None,
        score_on_truncation: bool = True,
        router: str = "lexical",
        score_limits: ScoreLimits | None = None,
        render_mode: str | None = None,
    ) -> None:
        self._pool = self._make_pool(task)
        check_level(level)
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
            raise ValueError(f"budget must be an int >= 0, got {budget!r}")
        if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
            raise ValueError(f"max_steps must be an int >= 1, got {max_steps!r}")
        if time_limit_s is not None and time_limit_s <= 0:
            raise ValueError(f"time_limit_s must be > 0 or None, got {time_limit_s!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.level, self.sandbox_name, self.sandbox_options = level, sandbox, dict(sandbox_options or {})
        make_sandbox(sandbox, **self.sandbox_options)  # fail fast on a bad backend or option
        self.budget, self.max_steps, self.time_limit_s = budget, max_steps, time_limit_s
        self.reward_config = reward if isinstance(reward, RewardConfig) else RewardConfig(**(reward or {}))
        self.score_on_truncation, self.router, self.score_limits = score_on_truncation, router, score_limits
        self.render_mode = render_mode
        self.action_space = ActionSpace()
        self.observation_space = observation_space(budget, max_steps, exit_codes=257)
        self._state: EpisodeState | None = None
        self._agents: dict[tuple[str, str], GroundedUserAgent] = {}

    # -- hooks a task family overrides -------------------------------------------------------------------
    def _make_pool(self, task: Any) -> TaskPool:
        """Return the pool of tasks this env draws from."""
        return TaskPool(task)

    def _prepare_workspace(self, box: Sandbox, task: Any) -> None:
        """Fill the fresh workspace of an episode (the task's starting files, if any)."""
        if task.start_dir is not None:
            box.copy_in(task.start_dir)

    def _intro(self, task: Any, level: str) -> str:
        """Return the first observation's text."""
        return INTRO.format(prd=task.prd(level), language=task.language, budget=self.budget)

    def _evaluate(self, state: EpisodeState) -> tuple[float, dict[str, Any]]:
        """Score the final workspace; return the reward and the JSON-able ``info["score"]`` block."""
        report = self._score(state)
        stats = state.user_agent.stats()
        components = reward_components(report, stats)
        reward = self.reward_config.total(components)
        return reward, score_info(report, stats, components, reward)

    # -- configuration helpers -------------------------------------------------------------------------
    def _user_agent(self, task: Any, level: str) -> GroundedUserAgent:
        key = (f"{task.origin}:{task.id}", level)
        agent = self._agents.get(key)
        if agent is None:
            agent = GroundedUserAgent.from_task(task, level=level, budget=self.budget, router=self.router)
            self._agents[key] = agent
        agent.reset()
        return agent

    # -- gymnasium API -----------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start an episode; ``options`` may set ``task`` (name, path or Task) and ``level``."""
        super().reset(seed=seed)
        task, level = self._pool.pick(options, self.level, self.np_random)
        self._close_episode()
        box = make_sandbox(self.sandbox_name, language=task.language, **self.sandbox_options)
        box.start()
        self._prepare_workspace(box, task)
        self._state = EpisodeState(task=task, level=level, sandbox=box, user_agent=self._user_agent(task, level))
        text = self._intro(task, level)
        observation = self._observation(text, "env", -1)
        return observation, self._info(None, "reset", Timing())

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        """Carry out one action; see the class docstring for the contract."""
        state = self._state
        if state is None or state.done:
            raise ResetNeeded("call reset() before step()" if state is None else "the episode is over; call reset()")
        started = time.perf_counter()
        state.step += 1
        state.counters["steps"] += 1
        try:
            parsed = parse_action(action)
        except ActionParseError as exc:
            return self._finish_step(ToolOutcome(f"Action error: {exc}", "env", -1, str(exc)), "invalid", started)
        tool = parsed.tool
        state.counters[tool] += 1
        if isinstance(parsed, Submit):
            return self._end(ToolOutcome("Submitted; the workspace was scored.", "env", -1), tool, started, True)
        outcome = run_tool(parsed, state.sandbox, state.user_agent)
        state.counters["fallbacks"] = sum(t.fallback_triggered for t in state.user_agent.log.turns)
        return self._finish_step(outcome, tool, started)

    def _finish_step(self, outcome: ToolOutcome, tool: str, started: float) -> tuple[dict, float, bool, bool, dict]:
        state = self._state
        assert state is not None  # noqa: S101
        if outcome.action_error:
            state.counters["action_errors"] += 1
        over_steps = state.step >= self.max_steps
        over_time = self.time_limit_s is not None and time.monotonic() - state.started >= self.time_limit_s
        if over_steps or over_time:
            return self._end(outcome, tool, started, False)
        timing = Timing(outcome.sandbox_s, outcome.user_agent_s, 0.0, time.perf_counter() - started)
        state.timing = state.timing + timing
        observation = self._observation(outcome.output, outcome.source, outcome.exit_code)
        return observation, 0.0, False, False, self._info(outcome.action_error, tool, timing)

    def _end(self, outcome: ToolOutcome, tool: str, started: float, submitted: bool) -> tuple:
        state = self._state
        assert state is not None  # noqa: S101
        state.done = True
        reward, score_block, scoring_s = 0.0, None, 0.0
        if submitted or self.score_on_truncation:
            scoring_started = time.perf_counter()
            reward, score_block = self._evaluate(state)
            scoring_s = time.perf_counter() - scoring_started
        timing = Timing(outcome.sandbox_s, outcome.user_agent_s, scoring_s, time.perf_counter() - started)
        state.timing = state.timing + timing
        info = self._info(outcome.action_error, tool, timing)
        info["score"] = score_block
        info["episode_timing"] = state.timing
        observation = self._observation(outcome.output, outcome.source, outcome.exit_code)
        return observation, reward, submitted, not submitted, info

    # -- helpers ---------------------------------------------------------------------------------------
    def _score(self, state: EpisodeState) -> ScoreReport:
        """Score the workspace in fresh sandboxes."""
        options = {"sandbox": self.sandbox_name, "sandbox_options": self.sandbox_options, "limits": self.score_limits}
        with final_workspace(state.sandbox) as workspace:
            return score(state.task, workspace, **options)  # type: ignore[arg-type]

    def _observation(self, text: str, source: str, exit_code: int) -> dict[str, Any]:
        state = self._state
        assert state is not None  # noqa: S101
        state.last_output = text
        return {
            "output": text,
            "source": SOURCES.index(source),
            "exit_code": int(exit_code),
            "questions_left": max(state.user_agent.remaining, 0),
            "step": min(state.step, self.max_steps),
        }

    def _info(self, action_error: str | None, tool: str, timing: Timing) -> dict[str, Any]:
        state = self._state
        assert state is not None  # noqa: S101
        return {
            "task": state.task.id,
            "level": state.level,
            "tool": tool,
            "action_error": action_error,
            "counters": dict(state.counters),
            "timing": timing,
        }

    def render(self) -> str | None:
        """Return the last observation text in ``ansi`` mode."""
        if self.render_mode != "ansi" or self._state is None:
            return None
        return self._state.last_output

    @property
    def workspace(self) -> Path:
        """Host path of the current workspace (local sandbox), for inspection and tests."""
        if self._state is None:
            raise ResetNeeded("call reset() first")
        return self._state.sandbox.host_workspace  # type: ignore[attr-defined]

    @property
    def task(self) -> Task:
        """The current task."""
        if self._state is None:
            raise ResetNeeded("call reset() first")
        return self._state.task

    def _close_episode(self) -> None:
        state, self._state = self._state, None
        if state is not None:
            state.sandbox.close()

    def close(self) -> None:
        """Release the sandbox; safe to call twice."""
        self._close_episode()
        super().close()
