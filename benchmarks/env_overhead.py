"""Environment overhead, measured as ratios in one run.

1. ``env.step({"tool": "bash", "command": "true"})`` vs ``subprocess.run(["bash", "-c", "true"])``, per call
   (goal <= 1.3x).
2. ``env.reset()`` latency, median over ``--resets`` resets (goal <= 30 ms); each reset closes the previous
   episode's sandbox and starts a fresh one.

Both with bubblewrap on (``sandbox_options={"isolation": "bwrap"}``) and off (``{"isolation": "none"}``), on
``builtin/config-lint``. Env and raw calls are timed in interleaved blocks so that machine noise hits both alike.

Usage: python benchmarks/env_overhead.py [--steps N] [--resets R] [--blocks B] [--task NAME]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time

import icae_env
from icae_env.sandbox.local import bwrap_available

ENV_ID = "icae/ProjectBuild-v0"
TRUE = {"tool": "bash", "command": "true"}
# The sandbox's environment, so that both sides start the same bash the same way.
SAME_ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG": "C.UTF-8",
    "HOME": tempfile.gettempdir(),
}


def step_vs_raw(task: str, isolation: str, steps: int, blocks: int) -> tuple[float, float]:
    """Return (env step, raw subprocess) seconds per call."""
    per_block = max(steps // blocks, 1)
    env = icae_env.make(ENV_ID, task=task, sandbox_options={"isolation": isolation}, max_steps=steps + 100)
    try:
        env.reset(seed=0)
        for _ in range(10):  # warm-up: first-step checks, page cache
            env.step(TRUE)
            subprocess.run(["bash", "-c", "true"], env=SAME_ENV, check=False)
        env_s = raw_s = 0.0
        for _ in range(blocks):
            started = time.perf_counter()
            for _ in range(per_block):
                env.step(TRUE)
            env_s += time.perf_counter() - started
            started = time.perf_counter()
            for _ in range(per_block):
                subprocess.run(["bash", "-c", "true"], env=SAME_ENV, check=False)
            raw_s += time.perf_counter() - started
    finally:
        env.close()
    calls = per_block * blocks
    return env_s / calls, raw_s / calls


def reset_latency(task: str, isolation: str, resets: int) -> list[float]:
    """Return the wall time of each of ``resets`` resets (after one warm-up reset)."""
    env = icae_env.make(ENV_ID, task=task, sandbox_options={"isolation": isolation})
    try:
        env.reset(seed=0)
        times = []
        for _ in range(resets):
            started = time.perf_counter()
            env.reset()
            times.append(time.perf_counter() - started)
    finally:
        env.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=500, help="bash 'true' steps (and raw calls) per isolation")
    parser.add_argument("--resets", type=int, default=200, help="resets per isolation")
    parser.add_argument("--blocks", type=int, default=5, help="interleaved timing blocks")
    parser.add_argument("--task", default="builtin/config-lint")
    args = parser.parse_args()
    isolations = ["bwrap", "none"] if bwrap_available() else ["none"]
    if "bwrap" not in isolations:
        print("bubblewrap is not installed: only isolation 'none' is measured")
    print(f"task {args.task}; {args.steps} steps and {args.resets} resets per isolation\n")
    header = (
        f"{'isolation':10} {'step ms':>8} {'raw ms':>8} {'ratio':>6} {'goal':>6}   "
        f"{'reset med ms':>12} {'p90 ms':>7} {'goal':>6}"
    )
    print(header)
    print("-" * len(header))
    for isolation in isolations:
        step_s, raw_s = step_vs_raw(args.task, isolation, args.steps, args.blocks)
        resets = reset_latency(args.task, isolation, args.resets)
        median = statistics.median(resets)
        p90 = statistics.quantiles(resets, n=10)[-1] if len(resets) > 1 else median
        ratio = step_s / raw_s
        print(
            f"{isolation:10} {step_s * 1e3:8.3f} {raw_s * 1e3:8.3f} {ratio:6.2f} "
            f"{'ok' if ratio <= 1.3 else 'MISS':>6}   {median * 1e3:12.2f} {p90 * 1e3:7.2f} "
            f"{'ok' if median <= 0.030 else 'MISS':>6}"
        )
    print("\nratio = env.step(bash 'true') / subprocess.run(['bash', '-c', 'true']) (goal <= 1.3); reset goal <= 30 ms")


if __name__ == "__main__":
    main()
