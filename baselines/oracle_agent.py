"""Oracle baseline (the upper bound): asks about the hidden records, delivers the golden solution, submits.

It is privileged by design (``privileged = True``): the run layer hands it the task kind's
:class:`~icae_env.core.Solution` (the questions that reveal every record, and the actions that write the golden
solution; for revision tasks, the golden revision's changes over the starting app). It still acts only through
``env.step``, so its score is the score of the golden solution delivered through the environment. Its
trajectories therefore contain what it wrote: the golden files.

Run: python baselines/oracle_agent.py --tasks builtin --levels L1,L2,L3 [--out runs/oracle]
     python baselines/oracle_agent.py --tasks revision
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from icae_env.core import Solution
from icae_env.run import format_table, resolve_tasks, run_suite
from icae_env.run.args import SuiteArgs, parse_args


@dataclass
class Args(SuiteArgs):
    """Command-line arguments."""


class OracleAgent:
    """Asks the solution's questions while the budget lasts, then takes its actions, then submits."""

    name = "oracle"
    privileged = True

    def __init__(self) -> None:
        self._questions: deque[str] = deque()
        self._actions: deque[dict[str, Any]] = deque()

    def reset(self, observation: dict[str, Any], info: dict[str, Any], seed: int | None, *, solution: Solution) -> None:
        """Plan the episode from the privileged solution."""
        self._questions = deque(solution.questions)
        self._actions = deque(solution.actions)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        """Ask while questions remain, then write files, then submit."""
        if self._questions and observation["questions_left"] > 0:
            return {"tool": "ask", "question": self._questions.popleft()}
        if self._actions:
            return self._actions.popleft()
        return {"tool": "submit"}


def main() -> None:
    """Run the oracle over the selected tasks and levels and print the result table."""
    args = parse_args(Args, __doc__)
    results = run_suite(OracleAgent, resolve_tasks(args.tasks), args.level_list, (args.seed,), out_dir=args.out or None)
    print(format_table(results))


if __name__ == "__main__":
    main()
