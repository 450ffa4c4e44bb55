"""Training gain of the clarifier experiment on held-out task families, per seed, measured in this run.

Runs ``experiments/train_clarifier.py``'s :func:`train` (the same code path as ``python
experiments/train_clarifier.py``) at a reduced scale: the first ``--train_tasks`` certified train-split tasks of
every family that is neither held out nor the validation family train the policy for ``--episodes`` episodes; the
first ``--eval_tasks`` test-split tasks of each held-out family measure the greedy policy's task-specific coverage
before and after, at L1 and L2. It prints, per seed, the coverage before and after, the gain per held-out family,
the weights kept and the wall time; then the mean gain. Goal: a mean gain of at least 10 points.

The default router here is ``distilled`` (the cascade's first stage): through the default ``cascade`` router a
machine's first run previews every candidate of about 70 task levels with the cross-encoder (about 20 min on 2
cores; its logits are stored after). Building the split certifies about 105 family tasks first (about 4 minutes
once the cross-encoder's logits for them are stored, much longer on a machine that has none); each seed then
trains and evaluates in about 90 s on 2 cores. The full-scale figures (cascade router, 40 training tasks per
family, 2000 episodes) come from the experiment's own command; docs/experiments.md records both.

Usage: python benchmarks/clarifier_training.py [--seeds 0] [--episodes 1000] [--train_tasks 10] [--eval_tasks 5]
       [--router distilled] [--suite families|builtin] [--held_out TASKS] [--levels L1,L2]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
GOAL = 10.0  # points of held-out task-specific coverage


def load_experiment() -> ModuleType:
    """Import ``experiments/train_clarifier.py`` as the module ``train_clarifier_experiment``."""
    name = "train_clarifier_experiment"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "experiments" / "train_clarifier.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """Train once per seed and print the held-out gains."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0", help="comma-separated seeds, one training run each")
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--eval_every", type=int, default=500)
    parser.add_argument("--eval_episodes", type=int, default=5)
    parser.add_argument("--train_tasks", type=int, default=10)
    parser.add_argument("--eval_tasks", type=int, default=5)
    parser.add_argument("--router", default="distilled")
    parser.add_argument("--suite", default="families", help="'builtin': train on built-in tasks (a quick check)")
    parser.add_argument("--held_out", default="builtin/semver-range,builtin/token-bucket,builtin/unidiff")
    parser.add_argument("--levels", default="L1,L2")
    args = parser.parse_args()
    try:
        seeds = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        parser.error(f"--seeds takes comma-separated integers, got {args.seeds!r}")
    for name in ("episodes", "eval_every", "eval_episodes", "train_tasks", "eval_tasks"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be >= 1, got {getattr(args, name)}")
    experiment = load_experiment()
    gains = []
    for seed in seeds:
        options = {k: v for k, v in vars(args).items() if k != "seeds"}
        started = time.perf_counter()
        result = experiment.train(experiment.Args(**options, seed=seed, icae_sample=""))
        seconds = time.perf_counter() - started
        before = result.curve[0][1]
        after = float(np.mean([last for _, last in result.groups.values()]))
        gains.append(after - before)
        kept = f"episode {result.chosen[0]}" if result.chosen else "the last"
        print(f"seed {seed}: held-out coverage {before:.1f}% -> {after:.1f}% ({after - before:+.1f} points); "
              f"weights of {kept}; {seconds:.0f} s")  # fmt: skip
        for name, (first, last) in result.groups.items():
            print(f"  {name}: {first:.1f}% -> {last:.1f}% ({last - first:+.1f})")
    mean = float(np.mean(gains))
    verdict = "met" if mean >= GOAL else "NOT met"
    print(f"mean gain over {len(gains)} seed(s): {mean:+.1f} points (goal >= {GOAL:+.1f}: {verdict})")


if __name__ == "__main__":
    main()
