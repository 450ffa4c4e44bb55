"""Ray rollout scaling and the driver-side cost of a remote step, measured as ratios in one run.

1. Episodes per second of the oracle baseline over the selected tasks with 1 and with 2 Ray workers (goal:
   2 workers / 1 worker >= 1.7 on a 2-core machine). Throughput is timed from the first episode handed out to the
   last result, after the workers have started. ``--repeats`` alternates 1- and 2-worker runs and prints the
   median and the best of each; every run also prints how busy the whole machine was (all processes, from
   /proc/stat), since other load on a 2-core machine takes CPU from the second worker first.
2. The driver-side overhead of a step through :class:`~icae_env.parallel.RayVectorEnv` vs ``env.step`` on a local
   environment, for a file tool (``view``) and a shell command (``bash true``), and a batched step of
   ``--envs`` remote environments vs the same number of local steps one after the other.

Usage: python benchmarks/ray_scaling.py [--tasks builtin] [--levels L1] [--repeats 1] [--steps 200] [--envs 2]
       [--address ADDR]   (default: a local 2-CPU cluster)
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import icae_env  # noqa: E402
from icae_env.baselines.oracle_agent import OracleAgent  # noqa: E402
from icae_env.parallel import RayVectorEnv, ray_session  # noqa: E402
from icae_env.run import (
    resolve_tasks,  # noqa: E402
    rollout,
)

ENV_ID = "icae/ProjectBuild-v0"

ACTIONS = {"view": {"tool": "view", "path": "."}, "bash true": {"tool": "bash", "command": "true"}}
STEP_KWARGS: dict[str, Any] = {"task": "builtin/config-lint", "max_steps": 1_000_000, "score_on_truncation": False}


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine from /proc/stat ((0, 0) where there is none)."""
    stat = Path("/proc/stat")
    if not stat.is_file():
        return 0, 0
    fields = [int(x) for x in stat.read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def throughput(tasks: list[str], levels: list[str], workers: int) -> float:
    """Run the oracle over every task and level with ``workers`` workers; returns episodes per second."""
    busy0, total0 = cpu_ticks()
    report = rollout(OracleAgent, tasks, levels, (0,), num_workers=workers, progress=False)
    busy1, total1 = cpu_ticks()
    bad = [(r.task, r.level, r.overall, r.error) for r in report.results if r.overall != 1.0 or r.error]
    assert not bad and not report.infra_errors, f"oracle runs failed: {bad} {report.infra_errors}"
    busy = (os.cpu_count() or 1) * (busy1 - busy0) / max(total1 - total0, 1)
    print(
        f"  {workers} worker(s): {len(report.results)} episodes in {report.wall_s:6.1f}s "
        f"= {report.episodes_per_s:.3f} episodes/s (startup {report.startup_s:.1f}s; "
        f"machine busy {busy:.2f} of {os.cpu_count()} cores, all processes)"
    )
    return report.episodes_per_s


def scaling(tasks: list[str], levels: list[str], repeats: int) -> None:
    print(f"1. Oracle rollouts: {len(tasks)} tasks x {len(levels)} levels, {repeats} repeat(s), runs alternate")
    rates: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(repeats):
        for workers in (1, 2):
            rates[workers].append(throughput(tasks, levels, workers))
    for label, pick in (("median", statistics.median), ("best", max)):
        one, two = pick(rates[1]), pick(rates[2])
        print(f"  {label:<6}: 1 worker {one:.3f}/s, 2 workers {two:.3f}/s; ratio 2/1 = {two / one:.2f} (goal >= 1.7)")


def median_ms(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median milliseconds per call of each function, calling them in turn for ``rounds`` rounds (5 warm-up)."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for round_ in range(rounds + 5):
        for name, call in calls.items():
            started = time.perf_counter()
            call()
            if round_ >= 5:
                times[name].append(1e3 * (time.perf_counter() - started))
    return {name: statistics.median(values) for name, values in times.items()}


def overhead(steps: int, envs: int) -> None:
    print(f"2. Step overhead: median of {steps} interleaved steps; {envs} remote environments in the batched step")
    env = icae_env.make(ENV_ID, **STEP_KWARGS)
    env.reset(seed=0)
    with RayVectorEnv(envs, STEP_KWARGS, num_cpus_per_env=0.5) as venv:
        venv.reset(seed=0)
        for name, action in ACTIONS.items():
            ms = median_ms(
                {
                    "local": functools.partial(env.step, action),
                    "remote": functools.partial(venv.step, {0: action}),
                    "batched": functools.partial(venv.step, dict.fromkeys(range(envs), action)),
                },
                steps,
            )
            local, remote, batched = ms["local"], ms["remote"], ms["batched"]
            print(
                f"  {name:<9} local {local:6.2f} ms | remote {remote:6.2f} ms (driver-side overhead "
                f"{remote - local:+.2f} ms, x{remote / local:.2f}) | batched x{envs} {batched:6.2f} ms vs {envs} "
                f"local steps {envs * local:6.2f} ms (x{batched / (envs * local):.2f})"
            )
    env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", default="builtin")
    parser.add_argument("--levels", default="L1")
    parser.add_argument("--repeats", type=int, default=1, help="1- and 2-worker run pairs (0: skip part 1)")
    parser.add_argument("--steps", type=int, default=200, help="timed steps per measurement (0: skip part 2)")
    parser.add_argument("--envs", type=int, default=2)
    parser.add_argument("--address", default=None, help="Ray cluster to join (default: start a local one)")
    args = parser.parse_args()
    tasks, levels = resolve_tasks(args.tasks), args.levels.split(",")
    cpus = 2 if args.address is None else None
    with ray_session(args.address, num_cpus=cpus, object_store_memory=200 * 1024 * 1024):
        print(f"Ray cluster: {os.cpu_count()} cores on this machine, load average {os.getloadavg()[0]:.2f}")
        if args.repeats > 0:
            scaling(tasks, levels, args.repeats)
        if args.steps > 0:
            overhead(args.steps, args.envs)


if __name__ == "__main__":
    main()
