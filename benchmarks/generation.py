"""Generated-task throughput: certified tasks per minute (in-process checks) and harness validation per task.

Goal (issue 16): >= 100 certified tasks per minute for the in-process work (plan, golden, case search with
ablations, strict loader, certification) on this machine, on a held-out family's test split and every other
family's train split; the real harness (golden 100% in every language, empty 0%) costs seconds per task and is
reported apart.

Certification routes every held-out paraphrase through the default ``cascade`` router, whose cross-encoder costs
about 70 ms per (question, record) pair the first time on a machine; its logits are then read back from the disk
store (:mod:`icae_env.user_agent.models.logit_store`). So each family is generated twice, each time in a fresh model (as
in a new process): ``cold`` with an empty store (a machine's first generation of these tasks), then ``warm`` with
the store the cold pass filled (every later one). The store is a temporary directory, removed at the end.

Run: python benchmarks/generation.py [--families all] [--count 30] [--harness 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import icae_env.families.generation as generation  # noqa: E402
from icae_env.families import TaskRejected, family_names, generate, get_family  # noqa: E402
from icae_env.families.harness import harness_problems  # noqa: E402
from icae_env.user_agent.models import cross_encoder  # noqa: E402
from icae_env.user_agent.models.logit_store import CACHE_VARIABLE  # noqa: E402


def _split(family: str) -> str:
    return "test" if get_family(family).held_out else "train"


def _in_process(family: str, count: int) -> tuple[int, int, float]:
    generation._CACHE.clear()
    cross_encoder._load.cache_clear()  # a fresh model: nothing remembered in the process
    cross_encoder.default_cross_encoder()  # loading (about a second) is not counted
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
    cold_rates, rates = [], []
    store = tempfile.TemporaryDirectory(prefix="icae-env-store-")
    os.environ[CACHE_VARIABLE] = store.name
    print(f"{'family':<20} {'certified':>9} {'rejected':>8} {'cold/min':>9} {'tasks/min':>10} {'harness s/task':>15}")
    for name in names:
        cold = _in_process(name, args.count)
        done, rejected, seconds = _in_process(name, args.count)
        cold_rates.append(60 * cold[0] / cold[2])
        rate = 60 * done / seconds
        rates.append(rate)
        started = time.perf_counter()
        problems = sum(len(harness_problems(generate(name, _split(name), i))) for i in range(args.harness))
        harness = (time.perf_counter() - started) / max(args.harness, 1)
        note = "" if not problems else f"  ({problems} harness problems)"
        print(f"{name:<20} {done:>9} {rejected:>8} {cold_rates[-1]:>9.1f} {rate:>10.1f} {harness:>15.1f}{note}")
    store.cleanup()
    warm, first = statistics.median(rates), statistics.median(cold_rates)
    print(f"\nmedian {warm:.1f} certified tasks per minute (goal >= 100, in-process checks), {first:.1f} cold "
          f"(the store empty: a machine's first generation of these tasks), {warm / first:.1f}x")  # fmt: skip


if __name__ == "__main__":
    main()
