"""Generated-task throughput: certified tasks per minute (in-process checks) and harness validation per task.

Goal (issue 16): >= 100 certified tasks per minute for the in-process work (plan, golden, case search with
ablations, strict loader, certification) on this machine; the real harness (golden 100% in every language, empty
0%) costs seconds per task and is reported apart.

Run: python benchmarks/generation.py [--families all] [--count 30] [--harness 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import icae_env.families.generation as generation  # noqa: E402
from icae_env.families import TaskRejected, family_names, generate, get_family  # noqa: E402
from icae_env.families.harness import harness_problems  # noqa: E402


def _split(family: str) -> str:
    """The split to draw from: ``test`` for a held-out family (it has no other), else ``train``."""
    return "test" if get_family(family).held_out else "train"


def _in_process(family: str, count: int) -> tuple[int, int, float]:
    generation._CACHE.clear()
    started, done, rejected, index = time.perf_counter(), 0, 0, 0
    while done < count:
        try:
            generate(family, _split(family), index)
            done += 1
        except TaskRejected:
            rejected += 1
        index += 1
    return done, rejected, time.perf_counter() - started


def main() -> None:
    """Print, per family, certified tasks per minute and harness seconds per task."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="all")
    parser.add_argument("--count", type=int, default=30, help="certified tasks per family (in-process)")
    parser.add_argument("--harness", type=int, default=2, help="tasks per family through the real harness")
    args = parser.parse_args()
    names = family_names() if args.families == "all" else args.families.split(",")
    rates = []
    print(f"{'family':<20} {'certified':>9} {'rejected':>8} {'tasks/min':>10} {'harness s/task':>15}")
    for name in names:
        done, rejected, seconds = _in_process(name, args.count)
        rate = 60 * done / seconds
        rates.append(rate)
        started = time.perf_counter()
        problems = sum(len(harness_problems(generate(name, _split(name), i))) for i in range(args.harness))
        harness = (time.perf_counter() - started) / max(args.harness, 1)
        note = "" if not problems else f"  ({problems} harness problems)"
        print(f"{name:<20} {done:>9} {rejected:>8} {rate:>10.1f} {harness:>15.1f}{note}")
    print(f"\nmedian {statistics.median(rates):.1f} certified tasks per minute (goal >= 100, in-process checks)")


if __name__ == "__main__":
    main()
