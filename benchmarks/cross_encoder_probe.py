"""Out-of-fold figures of the ``cascade`` router's cross-encoder, and the grid its constants were chosen from.

The ``distilled`` router's answerability gate sees a question and a record only through shared words and
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

The default ``cascade`` router's constants (:data:`icae_env.user_agent.routers.cascade.CASCADE`) are the row of this
grid chosen on the built-in out-of-fold figures: the lowest false-reveal rate with recall >= 0.80. Its cross-encoder is
these fold models, run in numpy as one ensemble (mean logit, as this probe scores the ICAE sample;
:mod:`benchmarks.router_fit.cross_encoder_fit` fits and writes them); ``benchmarks/router_quality.py --routers
cascade`` measures that router (its built-in figures partly in sample).

Usage: PYTHONPATH=. python benchmarks/cross_encoder_probe.py [--sample ../shared/icae-sample] [--folds 3]
       [--epochs 2] [--max-length 128] [--limit N]

Needs the ``embedding`` extra. About 40 minutes on two cores (three fine-tunes of 22M parameters); ``--limit N``
asks about N questions per corpus and trains on N pairs per fold: a quick run whose figures mean nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from benchmarks.router_fit.cross_encoder_fit import Asked, collect, fit_fold, fold_of
from benchmarks.router_fit.fits import builtin_levels
from benchmarks.router_fit.gate_fit import Calibration, reply_figures
from benchmarks.router_fit.labels import LabelData
from icae_env.user_agent.routers.cascade import CascadeWeights, combine, in_band
from icae_env.user_agent.routers.distilled import DISTILLED_GATE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from router_quality import sample_levels  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


Rule = Callable[[Asked], tuple[np.ndarray, bool]]


def combined(a: float, b: float, threshold: float, band: tuple[float, float] = (0.0, 1.0)) -> Rule:
    """Return the cascade's rule (``cascade.combine`` in the band): probabilities, and whether the model was called."""
    cascade = CascadeWeights(a=a, b=b, threshold=threshold, low=band[0], high=band[1])

    def rule(q: Asked) -> tuple[np.ndarray, bool]:
        if not in_band(q.gate_p, q.sample.generic, cascade):
            return q.gate_p, False
        return combine(q.gate_p, q.logits, q.sample.generic, cascade, DISTILLED_GATE.threshold), a != 0.0

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
    folds = fold_of([q.sample.task for q in corpora["builtin"]], args.folds)
    for fold in range(args.folds):
        started = time.time()
        model = fit_fold(corpora["builtin"], args.folds, fold, args.epochs, args.limit, args.max_length)
        model.score([q for q in corpora["builtin"] if folds[q.sample.task] == fold], 1.0)
        model.score(corpora.get("icae", []), 1.0 / args.folds)
        print(f"fold {fold}: fitted and scored in {time.time() - started:.0f} s", flush=True)
    report(corpora)


if __name__ == "__main__":
    main()
