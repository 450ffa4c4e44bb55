"""Train a clarification policy on icae/Clarify-v0 with REINFORCE and evaluate it on held-out built-in tasks.

The actions of an episode are the PRD's candidate questions (``baselines.heuristic_clarifier``: generic requirement
questions, templates filled with the PRD's salient terms, and questions about each PRD sentence). The policy is a
softmax over them, linear in features that transfer across tasks (see :class:`Policy`), sampled without replacement
for ``budget`` questions. Part of the features is read from the User Agent's replies so far (:class:`History`): how
close a candidate is to the points already answered, to questions that got answers or the fallback, and to the PRD
sentences that no reply has covered yet.

REINFORCE with reward-to-go and a per-(task, level, position) baseline trains it on the training tasks. Held-out
task-specific coverage is the greedy policy's, with ties broken at random, so that the untrained start (all scores
equal) is the uniform random policy over the same candidates.

Run: python examples/train_clarifier.py [--episodes 3000] [--out runs/train_clarifier]
Needs matplotlib for the learning-curve PNG (pip install matplotlib).
"""

from __future__ import annotations

import argparse
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path

import numpy as np

from baselines.heuristic_clarifier import (
    GENERIC_QUESTIONS,
    TERM_TEMPLATES,
    candidate_questions,
    prd_sentences,
    prd_terms,
)
from icae_env.envs.clarify import ClarifyEnv
from icae_env.tasks import list_tasks
from icae_env.user_agent.grounded import NOTICE
from icae_env.user_agent.text import STOPWORDS, tokens

#: Features known before asking (they follow the generic-question and term-template indicators).
STATIC = (
    "term salience",
    "sentence",
    "sentence position",
    "first sentence",
    "sentence length",
    "sentence specifics",
    "sentence chattiness",
    "PRD terms in sentence",
    "PRD similarity",
    "generic x PRD detail",
    "term x PRD detail",
    "sentence x PRD detail",
)
#: Features read from the replies so far, recomputed before every question.
DYNAMIC = (
    "closest reply point",
    "reply point similarity sum",
    "reply points over 0.1",
    "reply points over 0.2",
    "closest answered question",
    "closest unanswered question",
    "term already asked",
    "closest uncovered PRD sentence",
)
_SPECIFIC = re.compile(r"\d|[=_<>/@`]")
_WORDS = re.compile(r"[a-z']+")
_DETAILED_SENTENCES = 30  # a PRD with this many sentences counts as fully detailed


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


class Text:
    """Log-TF x IDF vectors over one PRD's words (IDF over its candidates and sentences).

    Args:
        documents: The texts whose words make the vocabulary and the IDF.
    """

    def __init__(self, documents: Sequence[str]) -> None:
        bags = [set(tokens(d)) for d in documents]
        df = Counter(w for bag in bags for w in bag)
        self.vocab = {w: i for i, w in enumerate(sorted(df))}
        self.idf = np.array([math.log(1 + len(bags) / df[w]) for w in self.vocab])

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Return L2-normalised rows, one per text (words outside the vocabulary are dropped)."""
        rows = np.zeros((len(texts), len(self.vocab)))
        for i, text in enumerate(texts):
            for word, count in Counter(tokens(text)).items():
                j = self.vocab.get(word)
                if j is not None:
                    rows[i, j] = (1 + math.log(count)) * self.idf[j]
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms > 0, norms, 1.0)


@dataclass
class Candidates:
    """One PRD's candidate questions and what is known about them before asking (a function of the PRD only).

    Attributes:
        kinds: ``generic:<i>``, ``term:<template>:<rank>`` or ``sentence:<i>:<n>`` per candidate.
        questions: The candidate questions.
        text: The PRD's word vectors.
        vectors: One word vector per candidate.
        sentences: One word vector per PRD sentence.
        term: The term rank of each term candidate (-1 for the others).
        static: The :data:`STATIC` features, one column each.
    """

    kinds: list[str]
    questions: list[str]
    text: Text
    vectors: np.ndarray
    sentences: np.ndarray
    term: np.ndarray
    static: np.ndarray

    @classmethod
    def from_prd(cls, prd: str, terms: int) -> Candidates:
        """Build the candidates of ``prd`` with ``terms`` PRD terms."""
        kinds, questions = (list(x) for x in zip(*candidate_questions(prd, terms), strict=True))
        sentences = prd_sentences(prd)
        text = Text(questions + sentences)
        vectors = text.vectors(questions)
        term = np.array([int(k.split(":")[2]) if k.startswith("term:") else -1 for k in kinds])
        static = _static_features(kinds, sentences, prd_terms(prd, terms), terms)
        static[:, STATIC.index("PRD similarity")] = vectors @ text.vectors([prd])[0]
        return cls(kinds, questions, text, vectors, text.vectors(sentences), term, static)


def _static_features(kinds: list[str], sentences: list[str], terms: list[str], n_terms: int) -> np.ndarray:
    """The :data:`STATIC` features but PRD similarity (filled in by the caller)."""
    rows = np.zeros((len(kinds), len(STATIC)))
    detail = min(len(sentences) / _DETAILED_SENTENCES, 1.0)
    column = {name: i for i, name in enumerate(STATIC)}
    for i, kind in enumerate(kinds):
        parts = kind.split(":")
        rows[i, column[f"{parts[0]} x PRD detail"]] = detail
        if parts[0] == "term":
            rows[i, column["term salience"]] = 1.0 - int(parts[2]) / max(n_terms, 1)
        elif parts[0] == "sentence":
            index, sentence = int(parts[1]), sentences[int(parts[1])]
            words = _WORDS.findall(sentence.lower())
            rows[i, column["sentence"]] = 1.0
            rows[i, column["sentence position"]] = index / max(int(parts[2]), 1)
            rows[i, column["first sentence"]] = float(index == 0)
            rows[i, column["sentence length"]] = min(len(words), 60) / 60
            rows[i, column["sentence specifics"]] = float(bool(_SPECIFIC.search(sentence)))
            rows[i, column["sentence chattiness"]] = sum(w in STOPWORDS for w in words) / max(len(words), 1)
            rows[i, column["PRD terms in sentence"]] = min(sum(t in sentence.lower() for t in terms), 5) / 5
    return rows


@lru_cache(maxsize=256)
def candidates_for(prd: str, terms: int) -> Candidates:
    """The candidates of ``prd``, built once per PRD (they depend on nothing else)."""
    return Candidates.from_prd(prd, terms)


@dataclass
class History:
    """What one episode's replies told so far: the reply points as word vectors, the questions answered or not."""

    points: list[np.ndarray] = field(default_factory=list)
    answered: list[int] = field(default_factory=list)
    unanswered: list[int] = field(default_factory=list)

    def record(self, candidates: Candidates, action: int, reply: str, fallback: bool) -> None:
        """Remember candidate ``action`` and its ``reply`` (each point of a reply is a paragraph)."""
        if fallback:
            self.unanswered.append(action)
            return
        self.answered.append(action)
        points = [p for p in reply.split("\n\n") if p.strip() and p.strip() != NOTICE]
        self.points.extend(candidates.text.vectors(points))

    def features(self, candidates: Candidates) -> np.ndarray:
        """Return the :data:`DYNAMIC` features, shape ``(candidates, len(DYNAMIC))``."""
        out = np.zeros((len(candidates.kinds), len(DYNAMIC)))
        uncovered = np.ones(len(candidates.sentences))
        if self.points:
            points = np.array(self.points)
            similarity = candidates.vectors @ points.T
            out[:, 0], out[:, 1] = similarity.max(1), similarity.sum(1)
            out[:, 2], out[:, 3] = (similarity > 0.1).sum(1), (similarity > 0.2).sum(1)
            if len(candidates.sentences):
                uncovered = 1.0 - (candidates.sentences @ points.T).max(1)
        for column, asked in ((4, self.answered), (5, self.unanswered)):
            if asked:
                out[:, column] = (candidates.vectors @ candidates.vectors[asked].T).max(1)
        asked_terms = candidates.term[self.answered + self.unanswered]
        out[:, 6] = (candidates.term >= 0) & np.isin(candidates.term, asked_terms)
        if len(candidates.sentences):
            out[:, 7] = (candidates.vectors @ (candidates.sentences * uncovered[:, None]).T).max(1)
        return out


class Policy:
    """A linear softmax over candidate-question features, sampled without replacement.

    Features (all transfer across tasks): which generic question or term template it is; the :data:`STATIC`
    features of its term or PRD sentence (salience; position, length, specifics and chattiness of the sentence),
    its similarity to the PRD and, per kind, how detailed the PRD is; and the :data:`DYNAMIC` features read from
    the replies so far.

    Args:
        terms: PRD terms per task used to build candidates.
    """

    def __init__(self, terms: int) -> None:
        self.terms, self.n_generic, self.n_templates = terms, len(GENERIC_QUESTIONS), len(TERM_TEMPLATES)
        self.n_static = self.n_generic + self.n_templates + len(STATIC)
        self.theta = np.zeros(self.n_static + len(DYNAMIC))

    def static_features(self, candidates: Candidates) -> np.ndarray:
        """Features known before asking, one row per candidate (the dynamic columns are left at 0)."""
        rows = np.zeros((len(candidates.kinds), self.theta.size))
        for i, kind in enumerate(candidates.kinds):
            parts = kind.split(":")
            if parts[0] == "generic":
                rows[i, int(parts[1])] = 1.0
            elif parts[0] == "term":
                rows[i, self.n_generic + int(parts[1])] = 1.0
        rows[:, self.n_generic + self.n_templates : self.n_static] = candidates.static
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


def run_episode(
    env: ClarifyEnv, policy: Policy, rng: np.random.Generator, job: tuple[str, str], seed: int, greedy: bool = False
) -> Episode:
    """Ask candidate questions on ``job`` (task, level) until the budget ends: sampled, or greedy to evaluate."""
    observation, info = env.reset(seed=seed, options={"task": job[0], "level": job[1]})
    candidates = candidates_for(observation["output"], policy.terms)
    static = policy.static_features(candidates)
    ep, history, left, done = Episode(), History(), np.ones(len(candidates.kinds), dtype=bool), False
    while not done and left.any():
        phi = static.copy()
        phi[:, policy.n_static :] = history.features(candidates)
        p = policy.probabilities(phi, left)
        action = policy.best(phi, left, rng) if greedy else int(rng.choice(len(p), p=p))
        observation, reward, terminated, truncated, info = env.step(candidates.questions[action])
        left[action], done = False, terminated or truncated
        history.record(candidates, action, observation["output"], info["fallback"])
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
