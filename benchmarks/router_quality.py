"""Router quality: precision on hand-labelled questions and leave-one-trigger-out recall, per router and corpus.

Per router and corpus it prints, measured in this run: the false task-specific reveal rate on unanswerable labelled
questions (FR, and per kind), recall on answerable hand-written paraphrases, the off-topic fallback rate (labelled
off-topic questions), leave-one-trigger-out top-1 and hit@3 with its off-topic check, mean ids per answered reply,
the unasked reveals (task-specific records per answerable labelled question that the reply holds and the label does
not list: what a reply gives away beyond the question), and the median and 90th-percentile routing latency of the
labelled questions.

Corpora: ``builtin`` (the twelve built-in tasks and ``benchmarks/data/router_eval_builtin.jsonl``) and ``icae-sample``
(``../shared/icae-sample`` and ``router_eval_icae_sample.jsonl``). Routers: ``distilled`` (the lexical ranker and gate
with a distilled static encoder's cosines), ``lexical`` (the default before it), both with their shipped constants,
fitted on the built-in tasks only (on the ICAE sample every figure is out of sample), ``cascade`` (the default:
``distilled`` with the shipped cross-encoder ensemble re-checking the questions its gate is unsure of; each of its three
models was fitted without a third of the built-in tasks, so its built-in figures are partly in sample, and
``benchmarks/cross_encoder_probe.py`` gives them out of fold), ``lexical-ungated`` (the lexical ranker with the rule
before the answerability gate, for comparison), ``lexical-embedding`` (the lexical ranker with sentence-embedding
cosines in its gate, fitted the same way; needs the ``embedding`` extra), ``embedding`` and ``llm`` (only with an
endpoint). ``--loto`` adds leave-one-task-out figures for the fitted routers asked for (``distilled``, ``lexical``,
``lexical-embedding``): for each built-in task, ranker weights, background and gate are fitted on the other eleven tasks
and their labels (:func:`benchmarks.router_fit.fits.fit_router`), and that task's questions are asked of the result.
``--curve`` sweeps the gate threshold of the fitted routers asked for (their other constants as shipped): false reveals
against recall, top-1 and hit@3 at each threshold, the trade-off that the shipped threshold sits on.

Usage: python benchmarks/router_quality.py
       [--routers cascade,distilled,lexical,lexical-ungated,lexical-embedding,embedding]
       [--sample DIR]
       [--data benchmarks/data] [--loto] [--curve] [--joins] [--errors N] [--fit]
       [--llm-base-url URL --llm-model NAME [--llm-api-key KEY] [--llm-cache FILE]]

``--joins`` sweeps the cascade's join bar (the bar at which the other task-specific candidates of an answered question
join its reply): the shipped one is the smallest whose built-in unasked reveals are no more than ``distilled``'s.
``--fit`` refits the shipped constants of the fitted routers asked for on the built-in tasks
(:func:`fit_default_router`), prints them and says whether they equal the shipped ones. Run from the repository
root with ``PYTHONPATH=.``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.router_fit.fits import (
    LEVELS,
    RouterFit,
    builtin_levels,
    evaluate_labels,
    evaluate_router,
    fit_default_router,
    fit_router,
)
from benchmarks.router_fit.labels import LabelData, LabelledQuestion, label_problems, load_labels
from icae_env.icae_bench.load import load_icae_bench
from icae_env.tasks import list_tasks
from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.base import Document, Router
from icae_env.user_agent.grounded import documents_for, make_router
from icae_env.user_agent.models.static_encoder import default_encoder
from icae_env.user_agent.optional.hybrid import HybridRouter
from icae_env.user_agent.routers.cascade import CASCADE, CascadeRouter, CascadeWeights
from icae_env.user_agent.routers.distilled import DistilledRouter
from icae_env.user_agent.routers.lexical import LexicalRouter

Factory = Callable[[Sequence[Document]], Router]
HEADER = (
    f"{'corpus':12} {'router':15} {'FR':>6} {'recall':>6} {'offtop':>6} {'top1':>6} {'hit@3':>6} {'ids/ans':>7} "
    f"{'unask':>6} {'ms p50':>6} {'ms p90':>6}  FR by kind"
)


def sample_levels(root: Path) -> list[tuple[str, UserAgentData]]:
    aliases = sorted(p.stem for p in (root / "user_agent" / "prd_json").glob("*.json"))
    return [(f"{a}/{lv}", load_icae_bench(root, a).user_agent_data(lv)) for a in aliases for lv in LEVELS]


def factory(router: str, args: argparse.Namespace) -> Factory:
    if router == "lexical":
        return lambda docs: LexicalRouter(docs)
    if router == "lexical-ungated":
        return lambda docs: LexicalRouter(docs, gate=None)
    options: dict[str, Any] = {}
    if router == "llm":
        options = {"base_url": args.llm_base_url, "model": args.llm_model, "api_key": args.llm_api_key}
        options |= {"cache_path": args.llm_cache} if args.llm_cache else {}
    return lambda docs: make_router(router, tuple(docs), **options)


def cached(build: Callable[[LabelledQuestion], Factory]) -> Callable[[LabelledQuestion, UserAgentData], Router]:
    """Return a ``router_for`` that builds one router per task level with the factory of its question."""
    routers: dict[tuple[str, str, str], Router] = {}

    def router_for(label: LabelledQuestion, data: UserAgentData) -> Router:
        if label.key not in routers:
            routers[label.key] = build(label)(documents_for(data))
        return routers[label.key]

    return router_for


def report(corpus: str, name: str, labels: list[LabelledQuestion], data: LabelData, levels: Any,
           build: Callable[[str], Factory], errors: int) -> None:  # fmt: skip
    """Print one row: labelled metrics with ``build(task)``'s routers, then leave-one-trigger-out."""
    quality = evaluate_labels(labels, data, cached(lambda q: build(LabelData.task_name(q))))
    trig = evaluate_router(levels, factory_for=lambda label: build(label.rsplit("/", 1)[0]))
    kinds = " ".join(f"{k}={r:.3f}/{n}" for k, (n, r) in quality.false_reveal_by_kind.items())
    print(
        f"{corpus:12} {name:15} {quality.false_reveal:6.3f} {quality.recall:6.3f} {quality.off_topic_fallback:6.3f} "
        f"{trig.top1:6.3f} {trig.hit_at_3:6.3f} {quality.ids_per_answer:7.2f} "
        f"{quality.unasked_reveals:6.3f} {quality.median_ms:6.3f} {quality.p90_ms:6.3f}  {kinds}",
        flush=True,
    )
    print(
        f"{'':28} n: {quality.unanswerable} unanswerable, {quality.paraphrases} paraphrases, {quality.answerable} "
        f"answerable, {quality.off_topic} off-topic, {trig.questions} trigger questions (trigger off-topic fallback "
        f"{trig.off_topic_fallback:.3f}, trigger median {trig.median_ms:.3f} ms)"
    )
    for error in quality.errors[:errors]:
        print("   error", error)


def constant(build: Factory) -> Callable[[str], Factory]:
    """Return a per-task factory lookup that gives ``build`` for every task."""
    return lambda task: build


def loto_builds(
    labels: list[LabelledQuestion], data: LabelData, router_class: type[LexicalRouter] = LexicalRouter
) -> dict[str, Factory]:
    """Fit ``router_class`` on every eleven built-in tasks; return each held-out task's factory."""
    tasks = list_tasks()
    builds: dict[str, Factory] = {}
    for task in tasks:
        fit = fit_router(labels, set(tasks) - {task}, data, router_class)
        print(f"  fold {task}: threshold={fit.gate.threshold} join={fit.gate.join} "
              f"generic={fit.gate.generic_threshold}", flush=True)  # fmt: skip
        builds[task] = fit.router
    return builds


#: The routers whose constants are fitted (``--fit``, ``--loto``).
FITTED: dict[str, type[LexicalRouter]] = {
    "distilled": DistilledRouter,
    "lexical": LexicalRouter,
    "lexical-embedding": HybridRouter,
}


#: The gate thresholds ``--curve`` tries.
CURVE = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


def curve(router: str, corpora: dict[str, Any], data: LabelData) -> None:
    """Print ``router``'s rows with its shipped constants and each threshold of :data:`CURVE`."""
    router_class = FITTED[router]
    shipped = router_class.default_gate
    print(f"\noperating curve ({router}: gate threshold swept, join capped by it; shipped {shipped.threshold}):")
    for threshold in CURVE:
        gate = replace(shipped, threshold=threshold, join=min(shipped.join, threshold))

        def build(docs: Sequence[Document], gate: Any = gate) -> Router:
            return router_class(docs, gate=gate)

        for corpus, (labels, levels) in corpora.items():
            report(corpus, f"@{threshold}", labels, data, levels, constant(build), 0)


#: The cascade join bars ``--joins`` tries.
JOINS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4)


def joins(corpora: dict[str, Any], data: LabelData) -> None:
    """Print the cascade's rows with each join bar of :data:`JOINS` (its other constants as shipped).

    The shipped bar (:data:`~icae_env.user_agent.routers.cascade.CASCADE`) is the smallest whose built-in unasked
    reveals are no more than ``distilled``'s.
    """
    print(f"\njoin bar (cascade: the other constants as shipped; shipped {CASCADE.join}):")
    for join in JOINS:
        cascade = replace(CASCADE, join=join)

        def build(docs: Sequence[Document], cascade: CascadeWeights = cascade) -> Router:
            return CascadeRouter(docs, cascade=cascade)

        for corpus, (labels, levels) in corpora.items():
            report(corpus, f"join@{join}", labels, data, levels, constant(build), 0)


def refit(labels: list[LabelledQuestion], router: str) -> None:
    fit = fit_default_router(labels, router_class=FITTED[router])
    print(f"refitted {router} constants (built-in tasks only):\n  weights {fit.weights}\n  gate {fit.gate}")
    shipped = RouterFit(FITTED[router].default_weights, None, FITTED[router].default_gate)
    from icae_env.user_agent.features.background import DEFAULT_BACKGROUND

    same = fit.weights == shipped.weights and fit.gate == shipped.gate and fit.background == DEFAULT_BACKGROUND
    print(f"  equal to the shipped constants: {same}")


def encoding_cost(questions: Sequence[str]) -> None:
    """Print the static encoder's time per question when nothing is cached.

    The table's latencies include the encoder's cache: a question asked of several task levels is encoded once.
    """
    encoder = default_encoder()
    times = []
    for question in dict.fromkeys(questions):
        started = time.perf_counter()
        encoder._encode(question)  # the uncached path of encode()
        times.append(time.perf_counter() - started)
    times.sort()
    print(
        f"\nstatic encoder, uncached: {len(times)} distinct questions, p50 {1000 * times[len(times) // 2]:.3f} ms, "
        f"p90 {1000 * times[int(len(times) * 0.9)]:.3f} ms per question (add to the distilled router's latency)"
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--routers",
        default="cascade,distilled,lexical,lexical-ungated",
        help="cascade, distilled, lexical, lexical-ungated, lexical-embedding, embedding, llm",
    )
    parser.add_argument("--sample", default=str(Path(__file__).resolve().parents[2] / "shared" / "icae-sample"))
    parser.add_argument("--data", default=str(Path(__file__).resolve().parent / "data"))
    parser.add_argument("--loto", action="store_true", help="leave-one-task-out figures (fitted routers)")
    parser.add_argument("--curve", action="store_true", help="sweep the gate threshold (fitted routers)")
    parser.add_argument("--joins", action="store_true", help="sweep the cascade's join bar")
    parser.add_argument("--errors", type=int, default=0, help="print this many wrong replies per row")
    parser.add_argument("--fit", action="store_true", help="refit the fitted routers' constants and compare")
    parser.add_argument("--llm-base-url", help="OpenAI-compatible endpoint base, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--llm-model", default="default")
    parser.add_argument("--llm-api-key")
    parser.add_argument("--llm-cache", help="JSON reply cache (replays without a server)")
    args = parser.parse_args()
    if "llm" in args.routers.split(",") and not args.llm_base_url:
        parser.error("the llm router needs --llm-base-url")
    return args


def main() -> None:
    args = parse_args()
    data = LabelData(args.sample if Path(args.sample).is_dir() else None)
    corpora = {"builtin": (load_labels(Path(args.data) / "router_eval_builtin.jsonl"), builtin_levels())}
    if data.icae_root is not None:
        icae = load_labels(Path(args.data) / "router_eval_icae_sample.jsonl")
        corpora["icae-sample"] = (icae, sample_levels(data.icae_root))
    for labels, _ in corpora.values():
        for problem in label_problems(labels, data):
            print("label problem:", problem)
    routers = args.routers.split(",")
    fitted = [r for r in routers if r in FITTED]
    if (args.fit or args.loto or args.curve) and not fitted:
        print(f"--fit, --loto and --curve apply to {', '.join(FITTED)} only; none is among --routers")
    for router in fitted if args.fit else []:
        refit(corpora["builtin"][0], router)
    print(HEADER)
    for router in routers:
        build = factory(router, args)
        for corpus, (labels, levels) in corpora.items():
            report(corpus, router, labels, data, levels, constant(build), args.errors)
    if "distilled" in routers:
        encoding_cost([q.question for labels, _ in corpora.values() for q in labels])
    for router in fitted if args.curve else []:
        curve(router, corpora, data)
    if args.joins:
        joins(corpora, data)
    for router in fitted if args.loto else []:
        print(f"\nleave-one-task-out ({router} fitted on the other eleven built-in tasks and their labels):")
        labels, levels = corpora["builtin"]
        builds = loto_builds(labels, data, FITTED[router])
        report("builtin-LOTO", router, labels, data, levels, builds.__getitem__, args.errors)
    print(
        "\ntargets (default router, issue 15): FR <= 0.05, recall >= 0.80, off-topic >= 0.97, ICAE-sample top-1 >= "
        "0.80 and hit@3 >= 0.90, median < 1 ms"
    )


if __name__ == "__main__":
    main()
