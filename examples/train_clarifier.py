"""Train a clarification policy on icae/Clarify-v0 with REINFORCE and evaluate it on held-out built-in tasks.

The actions of an episode are the PRD's candidate questions (``baselines.heuristic_clarifier``: generic requirement
questions, templates filled with the PRD's salient terms, and questions about each PRD sentence). The policy is a
softmax over them, linear in features that transfer across tasks (see :class:`Policy`), sampled without replacement
for ``budget`` questions. REINFORCE with reward-to-go and a per-(task, level, position) baseline trains it on the
training tasks. Held-out task-specific coverage is the greedy policy's, with ties broken at random, so that the
untrained start (all scores equal) is the uniform random policy.

Run: python examples/train_clarifier.py [--episodes 3000] [--out runs/train_clarifier]
Needs matplotlib for the learning-curve PNG (pip install matplotlib).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from baselines.heuristic_clarifier import GENERIC_QUESTIONS, TERM_TEMPLATES, candidate_questions
from icae_env.envs.clarify import ClarifyEnv
from icae_env.tasks import list_tasks
from icae_env.user_agent.text import tokens

N_STATIC = 3  # term salience, sentence indicator, sentence position
N_DYNAMIC = 3  # overlap with replies so far, with questions asked so far, with the PRD


@dataclass
class Args:
    """Command-line arguments."""

    held_out: str = "builtin/semver-range,builtin/token-bucket,builtin/unidiff"
    """comma-separated held-out tasks (fixed before training: the last three built-in names); the others train"""
    levels: str = "L1,L2"
    """comma-separated levels to train and evaluate on"""
    budget: int = 5
    """questions per episode"""
    question_cost: float = 0.02
    """reward subtracted per question"""
    terms: int = 10
    """PRD terms per task used to build candidates"""
    episodes: int = 3000
    """training episodes"""
    lr: float = 0.1
    """learning rate"""
    eval_every: int = 250
    """training episodes between held-out evaluations (the points of the learning curve)"""
    eval_episodes: int = 20
    """episodes per held-out task and level in each evaluation (they differ only in random tie-breaks)"""
    seed: int = 0
    """seed of the task draws, the policy's sampling and the env"""
    router: str = "lexical"
    """User Agent router"""
    out: str = "runs/train_clarifier"
    """output directory of learning_curve.png"""


class Policy:
    """A linear softmax over candidate-question features, sampled without replacement.

    Features (all transfer across tasks): which generic question; which term template and the term's salience;
    whether it asks about a PRD sentence, and where that sentence sits; and, recomputed after every reply, the share
    of its words already seen in replies, in earlier questions, and in the PRD.

    Args:
        terms: PRD terms per task used to build candidates.
    """

    def __init__(self, terms: int) -> None:
        self.terms, self.n_generic, self.n_templates = terms, len(GENERIC_QUESTIONS), len(TERM_TEMPLATES)
        self.theta = np.zeros(self.n_generic + self.n_templates + N_STATIC + N_DYNAMIC)

    def features(self, kinds: list[str]) -> np.ndarray:
        """Static features, one row per candidate kind (the dynamic columns are left at 0)."""
        rows = np.zeros((len(kinds), self.theta.size))
        static = self.n_generic + self.n_templates
        for i, kind in enumerate(kinds):
            parts = kind.split(":")
            if parts[0] == "generic":
                rows[i, int(parts[1])] = 1.0
            elif parts[0] == "term":
                rows[i, self.n_generic + int(parts[1])] = 1.0
                rows[i, static] = 1.0 - int(parts[2]) / max(self.terms, 1)
            else:
                rows[i, static + 1] = 1.0
                rows[i, static + 2] = int(parts[1]) / max(int(parts[2]), 1)
        return rows

    def probabilities(self, phi: np.ndarray, left: np.ndarray) -> np.ndarray:
        """Softmax over the candidates still ``left`` (zero elsewhere)."""
        logits = np.where(left, phi @ self.theta, -np.inf)
        weights = np.exp(logits - logits[left].max())
        return weights / weights.sum()

    def best(self, phi: np.ndarray, left: np.ndarray, rng: np.random.Generator) -> int:
        """The highest-scoring candidate still left, ties broken at random (untrained: the uniform policy)."""
        logits = phi @ self.theta
        return int(rng.choice(np.flatnonzero(left & (logits >= logits[left].max() - 1e-9))))


@dataclass
class Episode:
    """One episode: the feature matrix at each step, chosen indices, their distributions, rewards, coverage."""

    phi: list[np.ndarray] = field(default_factory=list)
    chosen: list[int] = field(default_factory=list)
    probs: list[np.ndarray] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    coverage: float = 0.0


def _overlap(words: list[set[str]], seen: set[str]) -> np.ndarray:
    return np.array([len(w & seen) / len(w) if w else 0.0 for w in words])


def run_episode(
    env: ClarifyEnv, policy: Policy, rng: np.random.Generator, job: tuple[str, str], seed: int, greedy: bool = False
) -> Episode:
    """Ask candidate questions on ``job`` (task, level) until the budget ends: sampled, or greedy to evaluate."""
    observation, info = env.reset(seed=seed, options={"task": job[0], "level": job[1]})
    kinds, questions = zip(*candidate_questions(observation["output"], policy.terms), strict=True)
    words = [set(tokens(q)) for q in questions]
    static = policy.features(list(kinds))
    static[:, -1] = _overlap(words, set(tokens(observation["output"])))
    ep, left, replies, asked, done = Episode(), np.ones(len(kinds), dtype=bool), set(), set(), False
    while not done and left.any():
        phi = static.copy()
        phi[:, -3], phi[:, -2] = _overlap(words, replies), _overlap(words, asked)
        p = policy.probabilities(phi, left)
        action = policy.best(phi, left, rng) if greedy else int(rng.choice(len(p), p=p))
        observation, reward, terminated, truncated, info = env.step(questions[action])
        left[action], done = False, terminated or truncated
        replies = replies if info["fallback"] else replies | set(tokens(observation["output"]))
        asked = asked | words[action]
        ep.phi.append(phi)
        ep.chosen.append(action)
        ep.probs.append(p)
        ep.rewards.append(float(reward))
    ep.coverage = 100.0 * info["task_coverage"]
    return ep


def reinforce(policy: Policy, ep: Episode, baseline: np.ndarray, lr: float) -> None:
    """One REINFORCE step with reward-to-go; ``baseline`` (this job's, per position) tracks its running mean."""
    to_go = np.cumsum(ep.rewards[::-1])[::-1]
    grad = np.zeros_like(policy.theta)
    for t, (action, p) in enumerate(zip(ep.chosen, ep.probs, strict=True)):
        grad += (to_go[t] - baseline[t]) * (ep.phi[t][action] - p @ ep.phi[t])
        baseline[t] += 0.1 * (to_go[t] - baseline[t])
    policy.theta += lr * grad


def evaluate(env: ClarifyEnv, policy: Policy, jobs: list[tuple[str, str]], episodes: int, seed: int) -> float:
    """Mean task-specific coverage (%) of the greedy policy on ``jobs`` (same seeds every call)."""
    rng = np.random.default_rng(seed)
    return float(
        np.mean([run_episode(env, policy, rng, job, seed, True).coverage for job in jobs for _ in range(episodes)])
    )


def _split(args: Args) -> tuple[list[str], list[str]]:
    held_out = [t.strip() for t in args.held_out.split(",") if t.strip()]
    training = [t for t in list_tasks() if t not in held_out]
    if not training or not held_out or not set(held_out) <= set(list_tasks()):
        raise ValueError(f"need built-in training and held-out tasks; held out {held_out}, training {training}")
    return training, held_out


def train(args: Args) -> tuple[list[tuple[int, float]], list[float]]:
    """Train; return the held-out curve ``[(episode, coverage %)]`` and the training episodes' coverage."""
    training, held_out = _split(args)
    levels = args.levels.split(",")
    env = ClarifyEnv(task=training + held_out, budget=args.budget, question_cost=args.question_cost, router=args.router)
    policy, rng = Policy(args.terms), np.random.default_rng(args.seed)
    jobs = [(t, lv) for t in training for lv in levels]
    held_jobs = [(t, lv) for t in held_out for lv in levels]
    baselines = {job: np.zeros(args.budget) for job in jobs}
    averaged = Policy(args.terms)  # the running mean of the iterates (Polyak averaging) is what gets evaluated
    curve, history = [(0, evaluate(env, averaged, held_jobs, args.eval_episodes, args.seed + 1))], []
    for i in range(1, args.episodes + 1):
        job = jobs[int(rng.integers(len(jobs)))]
        ep = run_episode(env, policy, rng, job, args.seed + i)
        reinforce(policy, ep, baselines[job], args.lr)
        averaged.theta += (policy.theta - averaged.theta) / i
        history.append(ep.coverage)
        if i % args.eval_every == 0 or i == args.episodes:
            curve.append((i, evaluate(env, averaged, held_jobs, args.eval_episodes, args.seed + 1)))
    env.close()
    return curve, history


def plot(curve: list[tuple[int, float]], history: list[float], path: Path) -> None:
    """Save the learning curve (training coverage, moving average, and held-out coverage) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    window = max(1, len(history) // 30)
    smooth = np.convolve(history, np.ones(window) / window, mode="valid")
    figure, axis = plt.subplots(figsize=(7, 4))
    axis.plot(np.arange(window, len(history) + 1), smooth, label=f"training tasks (mean of {window})", alpha=0.8)
    axis.plot(*zip(*curve, strict=True), marker="o", label="held-out tasks")
    axis.set(xlabel="training episode", ylabel="task-specific coverage (%)", title="icae/Clarify-v0, REINFORCE")
    axis.legend()
    axis.grid(alpha=0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)


def main() -> None:
    """Train, save the learning curve and print held-out coverage before and after."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for arg in fields(Args):
        parser.add_argument(f"--{arg.name}", type=type(arg.default), default=arg.default)
    args = Args(**vars(parser.parse_args()))
    curve, history = train(args)
    before, after = curve[0][1], curve[-1][1]
    path = Path(args.out) / "learning_curve.png"
    plot(curve, history, path)
    print(f"held-out task-specific coverage: before {before:.1f}%, after {after:.1f}% ({after - before:+.1f} points)")
    print(f"learning curve: {path}")


if __name__ == "__main__":
    main()
