"""Gymnasium vector envs: async vs sync wall time of ``gymnasium.make_vec`` over ``icae/ProjectBuild-v0``.

For each number of envs N (``--num-envs``), both vectorization modes with their default settings (async: worker
processes, shared memory on) are built, reset, and stepped ``--steps`` times with two batches:

1. every env runs ``bash sleep S`` (``--sleep``, default 1 s): async should take about S a step for any N (a
   sleep takes no CPU), sync about N * S. The issue's bound: 2 envs, ``sleep 1``, one
   async step < 1.5 s.
2. every env prints a 200,000-character non-ASCII output (the observation's size cap): the cost of moving big
   texts through the shared text buffers (async) or nothing (sync).

Each figure is the median over the steps (and the best, since other load on a 2-core machine only adds time).

Usage: python benchmarks/vector_envs.py [--num-envs 2,4] [--sleep 1.0] [--steps 3] [--task builtin/unidiff]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium  # noqa: E402

import icae_env  # noqa: E402, F401  (registers the ids and the text spaces' vector support)

ENV_ID = "icae/ProjectBuild-v0"
BIG_OUTPUT = {"tool": "bash", "command": "python3 -c \"print('é' * 199_999)\""}
BOUND_S = 1.5


def step_times(mode: str, n: int, action: dict[str, Any], steps: int, task: str) -> list[float]:
    """Seconds per batched step of ``action`` in every env, ``steps`` times, in a fresh vector env."""
    envs = gymnasium.make_vec(ENV_ID, num_envs=n, vectorization_mode=mode, task=task, max_steps=steps + 1)
    try:
        envs.reset(seed=0)
        times = []
        for _ in range(steps):
            started = time.perf_counter()
            obs, *_ = envs.step([action] * n)
            times.append(time.perf_counter() - started)
            if list(obs["exit_code"]) != [0] * n:
                raise RuntimeError(f"{mode}: {action['command']!r} failed: {obs['output']}")
        return times
    finally:
        envs.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--num-envs", default="2,4", help="comma-separated numbers of envs")
    parser.add_argument("--sleep", type=float, default=1.0, help="seconds each env sleeps per step")
    parser.add_argument("--steps", type=int, default=3, help="timed steps per mode and batch")
    parser.add_argument("--task", default="builtin/unidiff")
    args = parser.parse_args()
    sleep = {"tool": "bash", "command": f"sleep {args.sleep:g}"}
    print(f"{ENV_ID}, task {args.task}, {args.steps} steps per figure (median / best, seconds per step)\n")
    header = f"{'N':>3} {'batch':12} {'sync':>15} {'async':>15} {'sync/async':>10}"
    print(header)
    print("-" * len(header))
    for n in (int(x) for x in args.num_envs.split(",")):
        for label, action in ((f"sleep {args.sleep:g}", sleep), ("200k chars", BIG_OUTPUT)):
            figures = {mode: step_times(mode, n, action, args.steps, args.task) for mode in ("sync", "async")}
            medians = {mode: statistics.median(times) for mode, times in figures.items()}
            cells = " ".join(f"{medians[m]:7.3f}/{min(figures[m]):7.3f}" for m in ("sync", "async"))
            print(f"{n:3} {label:12} {cells} {medians['sync'] / medians['async']:10.2f}")
            if n == 2 and action is sleep and args.sleep == 1.0:
                best = min(figures["async"])
                print(f"    issue bound: 2 envs x sleep 1, async step < {BOUND_S} s: {best:.3f} s "
                      f"{'ok' if best < BOUND_S else 'MISS'}")  # fmt: skip


if __name__ == "__main__":
    main()
