"""Random baseline (a floor): samples random valid actions from the action space, then submits.

Run: python baselines/random_agent.py --tasks builtin --levels L1 [--steps 10]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from icae_env.errors import ArgumentError
from icae_env.run import format_table, resolve_tasks, run_suite
from icae_env.run.args import SuiteArgs, parse_args
from icae_env.spaces import ActionSpace


@dataclass
class Args(SuiteArgs):
    """Command-line arguments (the seed also seeds the action sampler)."""

    steps: int = 10
    """random actions before submitting"""


class RandomAgent:
    """Takes ``steps`` random actions (bash, write_file, view, ask) drawn from a seeded space, then submits."""

    name = "random"

    def __init__(self, steps: int = 10) -> None:
        if steps < 0:
            raise ArgumentError(f"steps must be >= 0, got {steps!r}")
        self.steps = steps
        self._left = steps
        self._space = ActionSpace()

    def reset(self, observation: dict[str, Any], info: dict[str, Any], seed: int | None) -> None:
        """Reseed the sampler from the episode seed."""
        self._space = ActionSpace(seed=seed)
        self._left = self.steps

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        """Return a random action, or submit when the steps are used up."""
        if self._left <= 0:
            return {"tool": "submit"}
        self._left -= 1
        return self._space.sample()


def main() -> None:
    """Run the random agent over the selected tasks and levels and print the result table."""
    args = parse_args(Args, __doc__)
    tasks = resolve_tasks(args.tasks)
    results = run_suite(lambda: RandomAgent(args.steps), tasks, args.level_list, (args.seed,), out_dir=args.out or None)
    print(format_table(results))


if __name__ == "__main__":
    main()
