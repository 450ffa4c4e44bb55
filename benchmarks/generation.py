"""Generated-task throughput: time to the first certified task and certified tasks per minute, cold and warm.

Goals (issues 16 and 50), on 2 cores: >= 20 certified tasks per minute cold and >= 100 warm, for the in-process work
(plan, golden, case search with ablations, strict loader, certification with every router of
:data:`~icae_env.families.certify.CERTIFY_ROUTERS`). The real harness (golden 100% in every language, empty 0%) costs
seconds per task and is reported apart (``--harness``).

Certification routes every stored trigger and held-out paraphrase through the ``cascade`` router, whose cross-encoder
is the cold cost: its logits are then read back from the disk store (:mod:`icae_env.user_agent.models.logit_store`).
So the same tasks (``--count``, taken in turn from each family's split: a held-out family's test split, every other
family's train split) are generated twice, each time with a fresh model and no task remembered (as in a new process):

* ``cold``: the store a fresh empty directory (a machine's first generation of these tasks). The first task's time
  includes loading the models, as in a new process;
* ``warm``: with the store the cold pass filled (every later generation).

The store is a temporary directory, removed at exit. The load average is printed: the figures are for the machine
as it was (other work on its cores slows the cold pass most).

Run: python benchmarks/generation.py [--families all] [--count 50] [--harness 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from icae_env.user_agent.models.logit_store import CACHE_VARIABLE  # noqa: E402

_STORE = tempfile.TemporaryDirectory(prefix="icae-env-store-")  # removed at exit (and by main)
os.environ[CACHE_VARIABLE] = _STORE.name  # before anything opens a store

import icae_env.families.generation as generation  # noqa: E402
from icae_env.families import TaskRejected, family_names, generate, get_family  # noqa: E402
from icae_env.families.harness import harness_problems  # noqa: E402
from icae_env.user_agent.models import cross_encoder  # noqa: E402

COLD_GOAL, WARM_GOAL = 20.0, 100.0  # certified tasks per minute on 2 cores


def _split(family: str) -> str:
    return "test" if get_family(family).held_out else "train"


def _pass(jobs: list[tuple[str, int]]) -> tuple[float, float, int, int, list[str]]:
    """Generate ``jobs``, nothing remembered in the process: seconds to the first certified task and in all, counts."""
    generation._CACHE.clear()
    cross_encoder._load.cache_clear()  # a fresh model: nothing remembered in the process
    started, first, done, rejected, names = time.perf_counter(), 0.0, 0, 0, []
    for family, index in jobs:
        try:
            generate(family, _split(family), index)
            done += 1
            names.append(f"{family}/{index}")
            first = first or time.perf_counter() - started
        except TaskRejected:
            rejected += 1
    return first, time.perf_counter() - started, done, rejected, names


def main() -> None:
    """Print time to the first certified task and certified tasks per minute, cold then warm, against the goals."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="all")
    parser.add_argument("--count", type=int, default=50, help="task indices generated (in turn from each family)")
    parser.add_argument("--harness", type=int, default=0, help="tasks per family through the real harness")
    args = parser.parse_args()
    if args.count < 1 or args.harness < 0:
        parser.error("--count must be >= 1 and --harness >= 0")
    names = family_names() if args.families == "all" else args.families.split(",")
    jobs = [(names[n % len(names)], n // len(names)) for n in range(args.count)]
    threads = cross_encoder.forward_threads()
    print(f"{args.count} tasks of {len(names)} families; {os.cpu_count()} cores, cross-encoder on {threads} threads, "
          f"load average {os.getloadavg()[0]:.1f}; store {_STORE.name}")  # fmt: skip
    try:
        rates = {}
        for label in ("cold", "warm"):
            first, seconds, done, rejected, _ = _pass(jobs)
            rates[label] = 60 * done / seconds
            print(f"{label}: first certified task {first:.2f} s; {done} certified, {rejected} rejected in "
                  f"{seconds:.1f} s: {rates[label]:.1f} certified tasks/min "
                  f"(load average {os.getloadavg()[0]:.1f})")  # fmt: skip
        for name in names[: len(names) if args.harness else 0]:
            started = time.perf_counter()
            problems = sum(len(harness_problems(generate(name, _split(name), i))) for i in range(args.harness))
            note = f" ({problems} harness problems)" if problems else ""
            print(f"harness {name}: {(time.perf_counter() - started) / args.harness:.1f} s/task{note}")
    finally:
        _STORE.cleanup()
    print(f"\ncold {rates['cold']:.1f}/min = {rates['cold'] / COLD_GOAL:.2f}x the goal (>= {COLD_GOAL:.0f}); "
          f"warm {rates['warm']:.1f}/min = {rates['warm'] / WARM_GOAL:.2f}x the goal (>= {WARM_GOAL:.0f})")  # fmt: skip


if __name__ == "__main__":
    main()
