"""``icae/Clarify-v0``: the clarification skill alone. Read a PRD, ask a grounded user questions, stop.

No sandbox, no files, no scoring run: an episode is a PRD and a series of questions to the grounded User Agent of
:mod:`icae_env.user_agent`, rewarded for the task's own hidden requirements it recovers. Routers are deterministic,
so their answers are memoised per question (:class:`~icae_env.user_agent.grounded.MemoRouter`): repeated
candidate questions, the usual case in training, cost a dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from icae_env.actions import MAX_QUESTION_CHARS, Ask, Submit
from icae_env.envs.base import Episode, IcaeEnv, StepOutcome
from icae_env.errors import check_number
from icae_env.registration import DEFAULT_ROUTER
from icae_env.spaces import MAX_OBSERVATION_CHARS, UnicodeText
from icae_env.tasks import Task

__all__ = ["ClarifyEnv", "STOP"]

#: The stop action: an empty (or whitespace-only) question. ``{"tool": "submit"}`` and ``Submit()`` stop too.
STOP = ""
_STOP_TOOLS = ("submit", "stop")


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


class ClarifyEnv(IcaeEnv[Episode]):
    """Recover a task's hidden requirements by asking its grounded User Agent; no sandbox.

    ## Description
    Each episode is one task at one level. The first observation is the level's PRD; each question is answered
    by the grounded User Agent from the level's hidden records only (at most three points per reply, a fallback
    reply when nothing matches; unanswerable questions still use the budget). A message may hold several questions
    (split at question marks, lines and list items): as ICAE's User Agent does, it answers the first three together,
    with at most three points in all, and the message costs one question of the budget and one ``question_cost``.
    The agent decides what to ask and when to stop.

    ## Action Space
    :class:`~icae_env.spaces.UnicodeText` of at most 4,000 characters: the question. The empty (or
    whitespace-only) string :data:`STOP` ends the episode. ``{"tool": "ask", "question": ...}``,
    ``{"tool": "submit"}`` and the :class:`~icae_env.actions.Ask`/:class:`~icae_env.actions.Submit` models are
    accepted too, so that :class:`icae_env.wrappers.TextActions` can drive the env. Anything else is an agent
    mistake: an observation with ``info["action_error"]`` that costs ``question_cost`` and a step, not a question.

    ## Observation
    The layout of ``icae/ProjectBuild-v0``: ``Dict(output=UnicodeText(201_000), source=Discrete(3) [1 user reply,
    2 PRD or env message], exit_code=Discrete(1, start=-1) [always -1], questions_left=Discrete(budget+1),
    step=Discrete(max_steps+1))``.

    ## Reward
    Per question: ``(newly recovered task-specific records) / (task-specific records of the level) -
    question_cost``; stop: 0. The return is ``task_coverage - question_cost * questions``. A record counts as
    recovered once a reply has drawn on it (``info["constraint_ids"]``); task-specific records exclude ARCH/HARNESS
    boilerplate and test-case files (:attr:`HiddenConstraint.is_task_specific`). Every term is in
    ``info["reward_terms"]``; the final step's ``info["stats"]`` holds ICAE's interaction metrics.
    ``info["router_errors"]`` counts the questions of the episode whose routing failed (an ``llm`` endpoint's
    error or unusable reply) and got the fallback reply.

    ## Termination/Truncation
    Terminated on stop or when the last question of the budget is answered. Truncated at ``max_steps``.

    ## Registered IDs
    ``icae/Clarify-v0``.

    ## Change log
    v0: initial version.

    Args:
        task: What to draw from on each reset: a task name (``builtin/<name>``), a pack path, a
            :class:`~icae_env.tasks.Task`, or a sequence of them (drawn by the seeded generator).
        level: The default level (``L1``, ``L2``, ``L3`` or ``ground``).
        budget: Questions per episode (>= 1).
        question_cost: Reward subtracted per question and per malformed action (>= 0).
        max_steps: Steps before truncation (>= 1).
        router: User Agent router name.
        router_options: Keyword arguments of the router (``llm``: ``base_url``, ``model``, ``api_key``, ...; unset
            ones from ``OPENAI_*``); a failing ``llm`` endpoint gives the fallback reply, counted in
            ``info["router_errors"]``.
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

    min_budget = 1
    max_output_chars = MAX_OBSERVATION_CHARS

    def __init__(
        self,
        task: str | Task | Sequence[str | Task] = "builtin/config-lint",
        level: str = "L1",
        budget: int = 16,
        question_cost: float = 0.02,
        max_steps: int = 64,
        router: str = DEFAULT_ROUTER,
        memo_size: int = 65_536,
        render_mode: str | None = None,
        router_options: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(
            task, level, kind="build", budget=budget, max_steps=max_steps, router=router, memo_size=memo_size,
            render_mode=render_mode, router_options=router_options,
        )  # fmt: skip
        self.question_cost = check_number("question_cost", question_cost)
        self.action_space = UnicodeText(MAX_QUESTION_CHARS)

    def _begin(self, state: Episode) -> str:
        return str(state.task.prd(state.level))

    def _act(self, state: Episode, action: Any) -> StepOutcome:
        question, error = _parse(action)
        if error is not None:
            info = self._terms(state, None, (), (), False, 0.0, -self.question_cost)
            return StepOutcome(f"Action error: {error}", "env", -1, -self.question_cost, False, info, error)
        if question is None:
            return StepOutcome("Stopped asking.", "env", -1, 0.0, True, self._terms(state, None, (), (), False, 0, 0))
        reply = state.user_agent.ask(question)
        new = state.recover(reply.constraint_ids)
        recovery = len(new) / len(state.targets) if state.targets else 0.0
        cost = 0.0 if reply.refused else -self.question_cost
        info = self._terms(state, question, reply.constraint_ids, new, reply.fallback, recovery, cost)
        return StepOutcome(reply.text, "user", -1, recovery + cost, state.user_agent.remaining <= 0, info)

    def _finish(self, state: Episode, outcome: StepOutcome, terminated: bool) -> tuple[float, dict[str, Any]]:
        return outcome.reward, {"stats": state.user_agent.stats().model_dump()}

    def _info(self, state: Episode, action_error: str | None) -> dict[str, Any]:
        info = super()._info(state, action_error)
        if state.step == 0:  # the reset info carries every key of a step's
            info.update(self._terms(state, None, (), (), False, 0.0, 0.0))
        return info

    @staticmethod
    def _terms(
        state: Episode,
        question: str | None,
        constraint_ids: tuple[str, ...],
        recovered: tuple[str, ...],
        fallback: bool,
        recovery: float,
        cost: float,
    ) -> dict[str, Any]:
        return {
            "question": question,
            "constraint_ids": constraint_ids,
            "recovered": recovered,
            "fallback": fallback,
            "targets": len(state.targets),
            "task_coverage": len(state.recovered) / len(state.targets) if state.targets else 0.0,
            "questions_used": len(state.user_agent.log.turns),
            "reward_terms": {"recovery": recovery, "question_cost": cost},
        }
