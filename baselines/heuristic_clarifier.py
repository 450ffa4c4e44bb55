"""Heuristic clarifier: asks high-yield questions built from the PRD's own terms and generic requirement templates.

An honest agent for ``icae/Clarify-v0``: it reads only the PRD (the first observation). Candidate questions are
generic requirement-elicitation questions (output format, errors, validation order, defaults, limits, structure ...)
and templates filled with the PRD's salient noun phrases; it alternates the two lists and stops when the budget or
the candidates run out. :func:`candidate_questions` is also the action set of ``experiments/train_clarifier.py`` (and
of the short ``examples/train_clarifier.py``).

Run: python baselines/heuristic_clarifier.py --tasks builtin --levels L1,L2 [--budget 8]
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

import icae_env
from icae_env.envs.clarify import STOP, ClarifyEnv
from icae_env.errors import ArgumentError
from icae_env.run import resolve_tasks
from icae_env.run.args import SuiteArgs, parse_args
from icae_env.user_agent.features.text import STOPWORDS

ENV_ID = "icae/Clarify-v0"

#: Generic requirement-elicitation questions (written for any small command-line library, not for a task).
GENERIC_QUESTIONS: tuple[str, ...] = (
    "what is the exact output format, line by line?",
    "what does the input look like and which fields are required?",
    "how should invalid input be reported?",
    "what are the exact error messages?",
    "in what order are the validation checks applied?",
    "what are the default values of optional fields?",
    "what are the limits on sizes, counts and ranges?",
    "how should empty input be handled?",
    "how should duplicates be handled?",
    "how should results be sorted or ordered?",
    "how should numbers be formatted and rounded?",
    "what edge cases should I watch out for?",
    "how should the code be organised into modules?",
    "may I use third-party libraries?",
    "what is the public API and its function signature?",
    "how are unknown or extra fields treated?",
    "is matching case sensitive?",
    "how should whitespace and newlines be treated?",
    "what should happen when a value is out of range?",
    "what does the summary line look like?",
    "how are times and timestamps represented?",
    "how are ties broken?",
    "how are missing or null values treated?",
    "what is printed when there is nothing to report?",
    "how does the test script run the cases?",
    "what types are accepted for each field?",
    "what happens with very large inputs?",
    "which cases are errors and which are warnings?",
)
#: Templates filled with a PRD term.
TERM_TEMPLATES: tuple[str, ...] = (
    "how exactly should {term} work?",
    "what are the rules for {term}?",
    "what is the output format for {term}?",
    "what errors can happen with {term}?",
)
#: Terms per grouped message: two or three questions in one message, each the first template filled with a term.
GROUP_SIZES: tuple[int, ...] = (2, 3)
_EXTRA_STOPWORDS = frozenset(
    """hey hi folks team all quick one our we'd we've it's don't can't doesn't isn't shouldn't won't let's lot
    little small tiny right now keep kept someone somebody nobody everyone people folks thing stuff bit bits
    usual plain thin nice fancy sure yes yeah yet still already ever never always often sometimes maybe
    roughly basically please want wants wanted need needs needed should shall would could might must
    also even much many more most less few every each other others another same different new old
    ship ships shipped asked ask asks told say says said way ways
    per between across within without over under above below after before since until while during through via
    onto upon among against along around beyond toward towards whether unless""".split()
)
_HEADER = re.compile(r"^\s*#.*$", re.M)
_CHUNK = re.compile(r"[.,;:!?()\[\]{}\"\n\u2014\u2013]+|\s-\s")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'/-]*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def _content(word: str) -> bool:
    lower = word.lower()
    return len(lower) > 2 and lower not in STOPWORDS and lower not in _EXTRA_STOPWORDS and not lower.endswith("'s")


def _phrases(prd: str) -> Counter[str]:
    """Count runs of one to three content words (runs are split at stopwords and punctuation)."""
    counts: Counter[str] = Counter()
    for chunk in _CHUNK.split(_HEADER.sub(" ", prd)):
        run: list[str] = []
        for word in [*_WORD.findall(chunk), ""]:
            if word and _content(word):
                run.append(word.lower())
                continue
            for size in (1, 2, 3):
                counts.update(" ".join(run[i : i + size]) for i in range(len(run) - size + 1))
            run = []
    return counts


def prd_terms(prd: str, limit: int = 10) -> list[str]:
    """Return up to ``limit`` salient phrases of ``prd``: frequent and multi-word first, none inside another.

    Three-word phrases count only when they occur at least twice (once is usually a clause, not a term).
    """
    if limit < 0:
        raise ArgumentError(f"limit must be >= 0, got {limit!r}")
    counts = {p: c for p, c in _phrases(prd).items() if c >= 2 or p.count(" ") < 2}
    ranked = sorted(counts, key=lambda p: (-(counts[p] * (1 + 0.5 * p.count(" "))), p))
    chosen: list[str] = []
    for phrase in ranked:
        if len(chosen) >= limit:
            break
        if not any(phrase in c or c in phrase for c in chosen):
            chosen.append(phrase)
    return chosen


def prd_sentences(prd: str, limit: int = 40) -> list[str]:
    """Return up to ``limit`` sentences and list items of ``prd`` with at least four words (headers dropped)."""
    return [sentence for sentence, _ in _sentence_parts(prd, limit)]


def prd_list_items(prd: str, limit: int = 40) -> list[bool]:
    """Whether each of :func:`prd_sentences` is (part of) a list item.

    A list item is a line opening with ``-``, ``*``, ``+``, ``1.`` or ``1)``.
    """
    return [item for _, item in _sentence_parts(prd, limit)]


def _sentence_parts(prd: str, limit: int) -> list[tuple[str, bool]]:
    """The first ``limit`` sentences of at least four words, each with whether its line is a list item."""
    if limit < 0:
        raise ArgumentError(f"limit must be >= 0, got {limit!r}")
    found: list[tuple[str, bool]] = []
    for line in _HEADER.sub(" ", prd).split("\n"):
        item = bool(_LIST_ITEM.match(line))
        for part in _SENTENCE.split(_LIST_ITEM.sub("", line) if item else line):
            if len(part.split()) >= 4:
                found.append((part.strip(" -*\t"), item))
    return found[:limit]


def candidate_questions(prd: str, terms: int = 10, grouped: int = 0) -> list[tuple[str, str]]:
    """Return ``(kind, question)`` candidates built from ``prd``.

    Kinds: ``generic:<i>`` (a generic question), ``term:<t>:<rank>`` (template ``t`` filled with the term of that
    salience rank), ``sentence:<i>:<n>`` (the ``i``-th of ``n`` PRD sentences, asked about as a whole) and, when
    ``grouped`` > 0, ``group:<k>:<rank>``: one message of ``k`` (each of :data:`GROUP_SIZES`) questions, the first
    template filled with the terms of ranks ``rank`` to ``rank + k - 1`` of the ``grouped`` most salient. The User
    Agent answers up to three questions of a message, with at most three points in all, as ICAE's does.

    Raises:
        ValueError: if ``terms`` or ``grouped`` is negative.
    """
    for name, value in (("terms", terms), ("grouped", grouped)):
        if value < 0:
            raise ArgumentError(f"{name} must be >= 0, got {value!r}")
    found = [(f"generic:{i}", q) for i, q in enumerate(GENERIC_QUESTIONS)]
    ranked = prd_terms(prd, max(terms, grouped))  # a longer list starts with the shorter one
    for rank, term in enumerate(ranked[:terms]):
        found.extend((f"term:{t}:{rank}", tpl.format(term=term)) for t, tpl in enumerate(TERM_TEMPLATES))
    for size in GROUP_SIZES if grouped else ():
        for rank in range(len(ranked[:grouped]) - size + 1):
            message = " ".join(TERM_TEMPLATES[0].format(term=term) for term in ranked[rank : rank + size])
            found.append((f"group:{size}:{rank}", message))
    sentences = prd_sentences(prd)
    found.extend(
        (f"sentence:{i}:{len(sentences)}", f"{s} How exactly should this work?") for i, s in enumerate(sentences)
    )
    return found


@dataclass
class Args(SuiteArgs):
    """Command-line arguments."""

    levels: str = "L1,L2"
    """comma-separated levels (L1, L2, L3, ground)"""
    budget: int = 8
    """questions per episode"""
    question_cost: float = 0.02
    """reward subtracted per question"""


class HeuristicClarifier:
    """Alternates generic questions and PRD-term questions (the first template for each term), then stops."""

    name = "heuristic-clarifier"

    def __init__(self, terms: int = 10) -> None:
        if terms < 0:
            raise ArgumentError(f"terms must be >= 0, got {terms!r}")
        self.terms = terms
        self._queue: list[str] = []

    def reset(self, observation: dict[str, Any], info: dict[str, Any], seed: int | None) -> None:
        """Plan the questions from the PRD (the observation text)."""
        generic = list(GENERIC_QUESTIONS)
        specific = [TERM_TEMPLATES[0].format(term=t) for t in prd_terms(observation["output"], self.terms)]
        self._queue = [q for pair in zip(generic, specific + [""] * len(generic), strict=False) for q in pair if q]

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """Return the next planned question, or :data:`STOP` when none is left."""
        return self._queue.pop(0) if self._queue and observation["questions_left"] > 0 else STOP


def make_env(budget: int, question_cost: float) -> gym.Env:
    """Create ``icae/Clarify-v0`` (the class directly while the ID is not registered)."""
    if ENV_ID in gym.registry:
        return icae_env.make(ENV_ID, budget=budget, question_cost=question_cost)
    return ClarifyEnv(budget=budget, question_cost=question_cost)


def run(policy: HeuristicClarifier, env: gym.Env, task: str, level: str, seed: int) -> dict[str, Any]:
    """Run one episode; return the task, level, task-specific coverage (%), questions and return."""
    observation, info = env.reset(seed=seed, options={"task": task, "level": level})
    policy.reset(observation, info, seed)
    total, done = 0.0, False
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy.act(observation, info))
        total, done = total + float(reward), terminated or truncated
    stats = info["stats"]
    return {
        "task": info["task"],
        "level": level,
        "coverage": stats["task_coverage"],
        "questions": stats["turns_used"],
        "fallback": stats["fallback_rate"],
        "return": total,
    }


def main() -> None:
    """Run the heuristic clarifier over the selected tasks and levels and print a coverage table."""
    args = parse_args(Args, __doc__)
    env, policy = make_env(args.budget, args.question_cost), HeuristicClarifier()
    rows = [run(policy, env, t, lv, args.seed) for t in resolve_tasks(args.tasks) for lv in args.level_list]
    env.close()
    print(f"{'task':<16}{'level':<7}{'coverage':>9}{'questions':>10}{'fallback':>9}{'return':>8}")
    for r in rows:
        print(
            f"{r['task']:<16}{r['level']:<7}{r['coverage']:>9.1f}{r['questions']:>10}{r['fallback']:>9.1f}"
            f"{r['return']:>8.3f}"
        )
    mean = sum(r["coverage"] for r in rows) / len(rows)
    print(f"{'MEAN':<23}{mean:>9.1f}")


if __name__ == "__main__":
    main()
