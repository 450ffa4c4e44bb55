"""Probe: would a cross-encoder re-checking the default router's gate meet issue 15's precision targets?

The default router's answerability gate (``distilled``) sees a question and a record only through shared words and
static-encoder cosines; its ranking of questions, not its threshold, is what keeps built-in paraphrase recall below
0.80 at a false-reveal rate of 0.05. This probe measures what a model that reads question and record *together*
adds. It fine-tunes all-MiniLM-L6-v2 (the ``embedding`` extra's weights) as a cross-encoder: input ``question [SEP]
triggers || response``, one logit, binary cross-entropy on "this record answers this question". Training pairs are
the gate's candidates (the distilled ranker's best five, generic records left out) of the built-in tasks' labelled
questions and leave-one-trigger-out trigger questions, labelled as in ``benchmarks/data`` (a record answers a
labelled question when the label lists it; a trigger question is answered by its own record).

Folds are by task (task ``i`` of the sorted built-in tasks is in fold ``i % folds``). Each built-in question is
scored by the model that did not see its task; each ICAE-sample question by the mean logit of all fold models, so
every ICAE figure is out of sample. The gate's probabilities are the shipped ones (fitted on all built-in tasks, so
in sample on built-in: compare built-in rows with the "gate alone" rows, which share that).

The candidate probability is ``sigmoid(a * cross_logit + b * logit(gate_p))``, shifted so that threshold ``t`` plays
the part of the shipped 0.4 (the reply rule, joins and generic records as shipped). The cascade calls the
cross-encoder only when the gate's best task-specific probability lies in ``[lo, hi)``; elsewhere the gate decides
alone, so the median routing latency stays the gate's when fewer than half of the questions are in the band.

Usage: PYTHONPATH=. python benchmarks/cross_encoder_probe.py [--sample ../shared/icae-sample] [--folds 3]
       [--epochs 2] [--max-length 128] [--limit N]

Needs the ``embedding`` extra. About 40 minutes on two cores (three fine-tunes of 22M parameters); ``--limit N``
asks about N questions per corpus and trains on N pairs per fold: a quick run whose figures mean nothing.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.base import Document, routable_response
from icae_env.user_agent.distilled import DISTILLED_GATE, DistilledRouter
from icae_env.user_agent.embedding import DEFAULT_MODEL, resolve_model
from icae_env.user_agent.evaluation import builtin_levels
from icae_env.user_agent.gate_fit import Calibration, GateSample, gate_sample, reply_figures
from icae_env.user_agent.grounded import documents_for
from icae_env.user_agent.labelled import LabelData, load_labels
from icae_env.user_agent.trigger_eval import leave_one_out

sys.path.insert(0, str(Path(__file__).resolve().parent))
from router_quality import sample_levels  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
RESPONSE_CHARS = 700


@dataclass
class Asked:
    """One question as the gate sees it (:class:`~icae_env.user_agent.gate_fit.GateSample`), with its documents."""

    sample: GateSample
    docs: Sequence[Document]
    question: str
    gate_p: np.ndarray
    logits: np.ndarray
    latency: float = 0.0


def _ask(router: DistilledRouter, question: str, task: str, kind: str, answers: set[str], of: str | None) -> Asked:
    docs = router.documents
    sample = gate_sample(router, docs, question, task, kind, answers, of)
    weights = DISTILLED_GATE
    gate_p = 1 / (1 + np.exp(-(sample.x @ weights.coefficients() + weights.bias)))
    return Asked(sample, docs, question, gate_p, np.zeros(len(sample.candidates)))


def collect(labels_file: Path, levels: Sequence[tuple[str, UserAgentData]], data: LabelData) -> list[Asked]:
    """Return the corpus's labelled questions and leave-one-trigger-out questions with their candidates."""
    out, routers = [], {}
    for label in load_labels(labels_file):
        if label.key not in routers:
            routers[label.key] = DistilledRouter(documents_for(data(label)))
        of = label.of if label.is_paraphrase else None
        task = LabelData.task_name(label)
        out.append(_ask(routers[label.key], label.question, task, label.kind, set(label.records), of))
    for name, level in levels:
        for reduced, asked in leave_one_out(documents_for(level)):
            router = DistilledRouter(reduced)
            for phrase, i in asked:
                doc_id = reduced[i].doc_id
                out.append(_ask(router, phrase, name.rsplit("/", 1)[0], "trigger", {doc_id}, doc_id))
    return out


def pairs(asked: Sequence[Asked]) -> list[tuple[Asked, int, float]]:
    """Return ``(question, candidate position, label)`` for every non-generic candidate."""
    return [
        (a, k, float(a.sample.positive[k]))
        for a in asked
        for k in range(len(a.sample.candidates))
        if not a.sample.generic[k]
    ]


def record_text(doc: Document) -> str:
    return "; ".join(doc.triggers) + " || " + routable_response(doc)[:RESPONSE_CHARS]


class CrossEncoder:
    """all-MiniLM-L6-v2 with a one-logit head, fine-tuned on (question, record) pairs."""

    def __init__(self, max_length: int, seed: int) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from transformers.utils import logging

        logging.set_verbosity_error()
        logging.disable_progress_bar()
        torch.manual_seed(seed)
        path = resolve_model(DEFAULT_MODEL)
        self.torch, self.max_length = torch, max_length
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1)

    def _encode(self, batch: Sequence[tuple[Asked, int, float]]) -> Any:
        questions = [a.question for a, _, _ in batch]
        texts = [record_text(a.docs[a.sample.candidates[k]]) for a, k, _ in batch]
        return self.tokenizer(questions, texts, truncation="only_second", max_length=self.max_length,
                              padding=True, return_tensors="pt")  # fmt: skip

    def fit(self, train: list[tuple[Asked, int, float]], epochs: int, seed: int, batch: int = 16) -> None:
        """Fine-tune on ``train`` (AdamW, linear warm-up and decay, batches shuffled by ``seed``)."""
        from transformers import get_linear_schedule_with_warmup

        torch = self.torch
        optimiser = torch.optim.AdamW(self.model.parameters(), lr=4e-5, weight_decay=0.01)
        steps = epochs * math.ceil(len(train) / batch)
        schedule = get_linear_schedule_with_warmup(optimiser, steps // 10, steps)
        loss_fn = torch.nn.BCEWithLogitsLoss()
        self.model.train()
        for epoch in range(epochs):
            order = train[:]
            random.Random(seed * 100 + epoch).shuffle(order)
            for start in range(0, len(order), batch):
                chunk = order[start : start + batch]
                logits = self.model(**self._encode(chunk)).logits.squeeze(-1)
                loss = loss_fn(logits, torch.tensor([y for _, _, y in chunk]))
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                optimiser.step()
                schedule.step()
                optimiser.zero_grad()

    def score(self, asked: Sequence[Asked], weight: float) -> None:
        """Add ``weight`` times the logit of each non-generic candidate to ``logits``; time each question."""
        self.model.eval()
        with self.torch.no_grad():
            for a in asked:
                batch = [(a, k, 0.0) for k in range(len(a.sample.candidates)) if not a.sample.generic[k]]
                if not batch:
                    continue
                started = time.perf_counter()
                logits = self.model(**self._encode(batch)).logits.squeeze(-1).tolist()
                a.latency += (time.perf_counter() - started) * weight
                for (_, k, _), value in zip(batch, logits, strict=True):
                    a.logits[k] += weight * value


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


Rule = Callable[[Asked], tuple[np.ndarray, bool]]


def combined(a: float, b: float, threshold: float, band: tuple[float, float] = (0.0, 2.0)) -> Rule:
    """Return the probabilities of the module docstring's rule, and whether the cross-encoder was called."""
    shift = _logit(DISTILLED_GATE.threshold) - _logit(threshold)

    def rule(q: Asked) -> tuple[np.ndarray, bool]:
        generic = q.sample.generic
        specific = q.gate_p[~generic]
        if not len(specific) or not band[0] <= specific.max() < band[1]:
            return q.gate_p, False
        p = np.clip(q.gate_p, 1e-6, 1 - 1e-6)
        mixed = 1 / (1 + np.exp(-(a * q.logits + b * np.log(p / (1 - p)) + shift)))
        return np.where(generic, q.gate_p, mixed), a != 0.0

    return rule


def gate_alone(threshold: float) -> Rule:
    return combined(0.0, 1.0, threshold)


def evaluate(asked: Sequence[Asked], rule: Rule) -> tuple[Calibration, float]:
    """Return the figures of the shipped reply rule on ``rule``'s probabilities, and the cross-encoder's call share."""
    decided = [rule(q) for q in asked]
    gate = DISTILLED_GATE
    figures = reply_figures([q.sample for q in asked], [p for p, _ in decided],
                            (gate.threshold, gate.join, gate.generic_threshold))  # fmt: skip
    return figures, sum(called for _, called in decided) / max(len(asked), 1)


def report(corpora: dict[str, list[Asked]]) -> None:
    rows: list[tuple[str, Rule]] = [(f"gate alone t={t}", gate_alone(t)) for t in (0.25, 0.3, 0.35, 0.4)]
    for a, b in ((0.5, 1.0), (0.5, 0.5)):
        for t in (0.1, 0.15, 0.2, 0.25):
            rows.append((f"a={a} b={b} t={t}", combined(a, b, t)))
            rows.append(("  cascade [0.1,0.6)", combined(a, b, t, (0.1, 0.6))))
    print(f"{'corpus':8} {'rule':22} {'FR':>6} {'recall':>6} {'offtop':>6} {'top1':>6} {'hit@3':>6} {'called':>6}")
    for corpus, asked in corpora.items():
        for name, rule in rows:
            m, called = evaluate(asked, rule)
            print(f"{corpus:8} {name:22} {m.false_reveal:6.3f} {m.recall:6.3f} {m.off_topic_fallback:6.3f} "
                  f"{m.trigger_top1:6.3f} {m.trigger_hit3:6.3f} {called:6.2f}")  # fmt: skip
        timed = [q.latency * 1000 for q in asked if q.latency]
        print(f"{corpus:8} cross-encoder per question: p50 {statistics.median(timed):.1f} ms, "
              f"p90 {sorted(timed)[int(0.9 * len(timed))]:.1f} ms ({len(timed)} questions)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", default=str(Path(__file__).resolve().parents[2] / "shared" / "icae-sample"))
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument(
        "--limit",
        type=int,
        default=0,
        help="a quick run: about this many questions per corpus and training pairs per fold",
    )
    args = parser.parse_args()
    if args.folds < 2 or args.epochs < 1 or args.limit < 0 or args.max_length < 16:
        parser.error("needs --folds >= 2, --epochs >= 1, --limit >= 0 and --max-length >= 16")
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as missing:
        raise SystemExit(f'{missing}: the probe needs pip install "icae-env[embedding]"') from None

    torch.set_num_threads(2)
    data = LabelData(args.sample if Path(args.sample).is_dir() else None)
    if data.icae_root is None:
        print(f"no ICAE sample at {args.sample}: built-in tasks only", flush=True)
    corpora = {"builtin": collect(DATA / "router_eval_builtin.jsonl", builtin_levels(), data)}
    if data.icae_root is not None:
        levels = sample_levels(data.icae_root)
        corpora["icae"] = collect(DATA / "router_eval_icae_sample.jsonl", levels, data)
    if args.limit:  # a quick run: every k-th question, so that about `limit` of each corpus are asked
        corpora = {name: asked[:: max(1, len(asked) // args.limit)] for name, asked in corpora.items()}
    tasks = sorted({q.sample.task for q in corpora["builtin"]})
    fold_of = {task: i % args.folds for i, task in enumerate(tasks)}
    for fold in range(args.folds):
        started = time.time()
        train = pairs([q for q in corpora["builtin"] if fold_of[q.sample.task] != fold])
        train = random.Random(fold).sample(train, min(args.limit, len(train))) if args.limit else train
        model = CrossEncoder(args.max_length, seed=fold)
        model.fit(train, args.epochs, seed=fold)
        model.score([q for q in corpora["builtin"] if fold_of[q.sample.task] == fold], 1.0)
        model.score(corpora.get("icae", []), 1.0 / args.folds)
        print(f"fold {fold}: {len(train)} training pairs, {time.time() - started:.0f} s", flush=True)
    report(corpora)


if __name__ == "__main__":
    main()
