"""Train a tiny clarification policy on icae/Clarify-v0 with REINFORCE, in seconds.

The actions are the PRD's candidate questions (generic ones, templates filled with its salient terms, grouped
messages, its sentences). A candidate's kind means the same in every task (``term:0:2``: template 0 about the third
most salient term, ``group:3:0``: one message about terms 0-2), so the policy is a softmax over one preference per
kind. It prints the greedy policy's coverage of the tasks' own hidden requirements before training (uniformly random
questions) and after, on the training tasks and on an unseen one. ``experiments/train_clarifier.py`` is the full
experiment (held-out task families, learning curves; docs/experiments.md).

Run: python examples/train_clarifier.py [--episodes 300] [--seed 0]
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import gymnasium as gym
import numpy as np

import icae_env
from icae_env.baselines.heuristic_clarifier import candidate_questions

TRAIN = ["builtin/cron-next", "builtin/dep-resolver", "builtin/log-rollup"]
HELD_OUT = "builtin/unidiff"
BUDGET, TERMS, GROUPED = 5, 6, 9  # questions per episode; PRD terms in single questions and in grouped messages


class SoftmaxPolicy:
    """One preference per candidate kind; asks by a softmax over the candidates not asked yet."""

    def __init__(self) -> None:
        self.prefs: dict[str, float] = defaultdict(float)

    def probs(self, arms: list[str], left: np.ndarray) -> np.ndarray:
        """The probability of asking each candidate (0 for those asked already)."""
        z = np.array([self.prefs[a] for a in arms])
        z = np.where(left, z - z[left].max(), -np.inf)
        return np.exp(z) / np.exp(z).sum()

    def act(self, arms: list[str], left: np.ndarray, rng: np.random.Generator, greedy: bool) -> int:
        """Sample a candidate, or take the best one (ties at random) when ``greedy``."""
        p = self.probs(arms, left)
        if greedy:
            return int(rng.choice(np.flatnonzero(p >= p.max() - 1e-12)))
        return int(rng.choice(len(p), p=p))


Step = tuple[list[str], np.ndarray, int, float]  # the candidates' kinds, their probabilities, the choice, the reward


def episode(
    env: gym.Env, policy: SoftmaxPolicy, task: str, seed: int, rng: np.random.Generator, greedy: bool = False
) -> tuple[float, list[Step]]:
    """Ask until the budget ends; return the coverage (%) and each step's kinds, probabilities, choice, reward."""
    obs, info = env.reset(seed=seed, options={"task": task, "level": "L1"})
    kinds, questions = zip(*candidate_questions(obs["output"], TERMS, GROUPED), strict=True)
    arms = ["sentence" if k.startswith("sentence:") else k for k in kinds]  # a sentence's index does not transfer
    left, steps, done = np.ones(len(kinds), dtype=bool), [], False
    while not done:
        choice = policy.act(arms, left, rng, greedy)
        obs, reward, terminated, truncated, info = env.step(questions[choice])
        steps.append((arms, policy.probs(arms, left), choice, float(reward)))
        left[choice], done = False, terminated or truncated
    return 100 * info["task_coverage"], steps


def reinforce(policy: SoftmaxPolicy, steps: list[Step], baseline: np.ndarray, lr: float) -> None:
    """One REINFORCE update: each step's log-probability gradient times its return-to-go minus a baseline."""
    future = np.cumsum([r for *_, r in steps][::-1])[::-1]
    for t, ((arms, probs, choice, _), ret) in enumerate(zip(steps, future, strict=True)):
        advantage = ret - baseline[t]
        baseline[t] += 0.05 * (ret - baseline[t])  # a running mean of the return-to-go at step t
        for a, p in zip(arms, probs, strict=True):
            policy.prefs[a] -= lr * advantage * p  # the gradient of log softmax: 1[chosen] - p
        policy.prefs[arms[choice]] += lr * advantage


def coverage(env: gym.Env, policy: SoftmaxPolicy, tasks: list[str], seed: int, episodes: int = 5) -> float:
    """Mean coverage (%) of the greedy policy over ``episodes`` per task (ties broken at random, same seeds)."""
    rng = np.random.default_rng(seed)
    runs = [episode(env, policy, t, seed + i, rng, greedy=True)[0] for t in tasks for i in range(episodes)]
    return float(np.mean(runs))


def main() -> None:
    """Train on TRAIN; print greedy coverage before and after, on TRAIN and on HELD_OUT."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--lr", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    # the distilled router is the default cascade's first stage: numpy only, no cross-encoder to warm up
    env = icae_env.make("icae/Clarify-v0", task=[*TRAIN, HELD_OUT], budget=BUDGET, router="distilled")
    policy, rng, baseline = SoftmaxPolicy(), np.random.default_rng(args.seed), np.zeros(BUDGET)
    before = coverage(env, policy, TRAIN, 10_000), coverage(env, policy, [HELD_OUT], 10_000)
    for i in range(args.episodes):
        _, steps = episode(env, policy, TRAIN[i % len(TRAIN)], args.seed + i, rng)
        reinforce(policy, steps, baseline, args.lr)
    after = coverage(env, policy, TRAIN, 10_000), coverage(env, policy, [HELD_OUT], 10_000)
    env.close()
    best = sorted(policy.prefs, key=policy.prefs.__getitem__, reverse=True)[:3]
    print(f"{args.episodes} training episodes on {', '.join(TRAIN)}; most preferred kinds: {', '.join(best)}")
    print(f"training tasks: coverage before {before[0]:.1f}%, after {after[0]:.1f}%")
    print(f"held-out {HELD_OUT}: coverage before {before[1]:.1f}%, after {after[1]:.1f}%")


if __name__ == "__main__":
    main()
