"""Random baseline (a floor): samples random valid actions from the action space, then submits.

Run: python baselines/random_agent.py --tasks builtin --levels L1 [--steps 10]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from typing import Any

from icae_env.runner import format_table, resolve_tasks, run_suite
from icae_env.spaces import ActionSpace
from icae_env.tasks import Task


@dataclass
class Args:
    """Command-line arguments."""

    tasks: str = "builtin"
    """comma-separated task names or pack paths; 'builtin' selects every built-in task"""
    levels: str = "L1"
    """comma-separated levels (L1, L2, L3, ground)"""
    seed: int = 0
    """reset seed (also seeds the action sampler)"""
    steps: int = 10
    """random actions before submitting"""
    out: str = ""
    """output directory for results.jsonl and summary.md (empty: none)"""


class RandomAgent:
    """Takes ``steps`` random actions (bash, write_file, view, ask) drawn from a seeded space, then submits."""

    name = "random"

    def __init__(self, steps: int = 10) -> None:
        if steps < 0:
            raise ValueError(f"steps must be >= 0, got {steps!r}")
        self.steps = steps
        self._left = steps
        self._space = ActionSpace()

    def reset(self, task: Task, level: str, observation: dict[str, Any], seed: int | None) -> None:
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for field in fields(Args):
        parser.add_argument(f"--{field.name}", type=type(field.default), default=field.default)
    args = Args(**vars(parser.parse_args()))
    results = run_suite(
        lambda: RandomAgent(args.steps),
        resolve_tasks(args.tasks),
        args.levels.split(","),
        (args.seed,),
        out_dir=args.out or None,
    )
    print(format_table(results))


if __name__ == "__main__":
    main()
