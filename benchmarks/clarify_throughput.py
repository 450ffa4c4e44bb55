"""Throughput of icae/Clarify-v0 in one process: env steps per second (resets included).

Two workloads over every built-in task at L1 and L2:

* candidate pool: each episode asks questions drawn from the PRD's candidate questions (generic questions, PRD
  terms and sentences, as in ``experiments/train_clarifier.py``) and sometimes stops: the training workload, where
  repeated questions are answered from the router memo;
* every question new: each question carries a fresh token, so the router scores every one (the memo never hits).

Only time inside ``env.reset`` and ``env.step`` is counted; the questions are prepared beforehand. Each workload
runs ``--repeats`` times and the best rate is printed (the usual guard against a busy machine: interference only
ever slows a run down).

With the default ``cascade`` router, a question whose gate is unsure costs the cross-encoder about 0.3 s the first
time on a machine (then it is read from the disk store), so the first workload's rate depends on how many of its
questions were asked before, and the second one's is about the cross-encoder's; ``--router distilled`` measures the
env without it.

Run: python benchmarks/clarify_throughput.py [--steps 50000] [--budget 16] [--repeats 3] [--router cascade]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from icae_env.baselines.heuristic_clarifier import candidate_questions
from icae_env.envs.clarify import STOP, ClarifyEnv
from icae_env.registration import DEFAULT_ROUTER, ROUTERS
from icae_env.tasks import list_tasks

LEVELS = ("L1", "L2")


def _pools(env: ClarifyEnv) -> dict[tuple[str, str], list[str]]:
    pools = {}
    for task in list_tasks():
        for level in LEVELS:
            observation, _ = env.reset(options={"task": task, "level": level})
            pools[(task, level)] = [q for _, q in candidate_questions(observation["output"])]
    return pools


def run(env: ClarifyEnv, pools: dict, steps: int, fresh: bool, seed: int, first_variant: int = 0) -> float:
    """Step until ``steps`` steps are done; return steps per second of time spent in the env.

    With ``fresh``, the questions are tagged ``(variant <n>)`` counting from ``first_variant``.
    """
    rng, jobs, spent, done_steps, counter = np.random.default_rng(seed), list(pools), 0.0, 0, first_variant
    while done_steps < steps:
        job = jobs[int(rng.integers(len(jobs)))]
        pool = pools[job]
        picks = [pool[int(i)] for i in rng.integers(len(pool), size=env.budget)]
        if fresh:
            picks = [f"{q} (variant {counter + i})" for i, q in enumerate(picks)]
            counter += len(picks)
        actions = picks[: int(rng.integers(1, env.budget + 1))] + [STOP]
        started = time.perf_counter()
        env.reset(seed=done_steps, options={"task": job[0], "level": job[1]})
        for action in actions:
            done_steps += 1
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
        spent += time.perf_counter() - started
    return done_steps / spent


def main() -> None:
    """Print the steps per second of both workloads."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=50_000, help="steps per workload")
    parser.add_argument("--budget", type=int, default=16, help="questions per episode")
    parser.add_argument("--repeats", type=int, default=3, help="runs per workload; the best rate is printed")
    parser.add_argument("--router", choices=sorted(ROUTERS), default=DEFAULT_ROUTER, help="the User Agent's router")
    args = parser.parse_args()
    env = ClarifyEnv(task=list_tasks(), budget=args.budget, router=args.router)
    pools = _pools(env)
    run(env, pools, min(args.steps, 2_000), fresh=False, seed=1)  # warm-up: load tasks, build indexes
    repeats = range(max(args.repeats, 1))
    pooled = max(run(env, pools, args.steps, fresh=False, seed=0) for _ in repeats)
    fresh_steps = max(args.steps // 10, 100)
    # each repeat tags its questions with variant numbers of its own, so that the memo never hits
    fresh = max(run(env, pools, fresh_steps, True, seed=0, first_variant=r * env.budget * fresh_steps) for r in repeats)
    print(f"Clarify-v0 {pooled:,.0f} steps/s  candidate-pool questions, memoised {args.router} router (the training "
          "workload)")  # fmt: skip
    print(f"Clarify-v0 {fresh:,.0f} steps/s  every question new (the {args.router} router scores every question)")
    env.close()


if __name__ == "__main__":
    main()
