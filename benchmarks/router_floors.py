"""Router quality floors: every figure of the shipped routers against the floor it must not fall below.

This was the suite's router-quality test; it asserts aggregate rates over hundreds of questions (and computes the
cascade's cross-encoder logits for every one of them: about 15 minutes on 2 cores with an empty logit cache), so it
is a benchmark. The suite keeps a fast test of the same code path (``tests/router_fit/test_router_quality.py``).

The floors are the values measured when each router was last calibrated, a little lower. Shipped constants were
fitted on the built-in tasks only, so every ICAE-sample figure is out of sample (the cascade's cross-encoder models
were each fitted without a third of the built-in tasks, so its built-in figures are partly in sample).

Prints one row per figure (router, corpus, figure, value, floor, ok) and exits 1 when any figure is below its floor.
The last figures are in ``docs/experiments.md``.

Usage (from the repository root): python benchmarks/router_floors.py [--routers cascade,distilled,lexical]
       [--sample DIR] [--tasks N]

``--tasks N`` asks only the first N tasks of each corpus (a quick run whose figures are not the floors' population).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.router_fit.fits import evaluate_router  # noqa: E402
from benchmarks.router_fit.labels import LabelData, evaluate_labels, load_labels  # noqa: E402
from icae_env.icae_bench.load import load_icae_bench  # noqa: E402
from icae_env.tasks import list_tasks, load_task  # noqa: E402
from icae_env.user_agent.grounded import documents_for, make_router  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "icae-sample"

#: Per router: (top-1, hit@3, ids per answer ceiling, off-topic) floors on the built-in tasks' leave-one-trigger-out
#: questions, the same on the ICAE sample's, then (false reveal ceiling, recall, off-topic) on the built-in and the
#: ICAE sample's labelled questions.
FLOORS = {
    "cascade": ((0.81, 0.89, 2.0, 0.98), (0.85, 0.90, 1.7, 0.98), (0.03, 0.80, 0.99), (0.05, 0.80, 0.97)),
    "distilled": ((0.79, 0.86, 1.8, 0.98), (0.83, 0.86, 1.6, 0.98), (0.04, 0.70, 0.98), (0.065, 0.78, 0.95)),
    "lexical": ((0.74, 0.81, 1.8, 0.98), (0.80, 0.84, 1.6, 0.98), (0.045, 0.64, 0.98), (0.07, 0.74, 0.94)),
}
#: Unasked reveals per answerable ICAE-sample question: the cascade's ceiling (and never above distilled's).
CASCADE_UNASKED = 0.26

Row = tuple[str, str, str, float, float, bool]


def builtin_levels(tasks: list[str]) -> list[tuple[str, Any]]:
    return [(f"{n}/{lv}", load_task(n).user_agent_data(lv)) for n in tasks for lv in ("L1", "L2", "L3")]


def icae_levels(root: Path, aliases: list[str]) -> list[tuple[str, Any]]:
    return [(f"{a}/{lv}", load_icae_bench(root, a).user_agent_data(lv)) for a in aliases for lv in ("L1", "L2", "L3")]


def labelled(name: str, data: LabelData, router: str, tasks: list[str]) -> Any:
    cache: dict[Any, Any] = {}

    def build(q: Any, d: Any) -> Any:
        return cache.setdefault(q.key, make_router(router, documents_for(d)))

    labels = [q for q in load_labels(DATA / name) if q.task in tasks or q.task.removeprefix("builtin/") in tasks]
    return evaluate_labels(labels, data, build)


def trigger_rows(router: str, corpus: str, levels: list[tuple[str, Any]], floors: tuple[float, ...]) -> list[Row]:
    quality = evaluate_router(levels, router=router)
    top1, hit3, ids, off_topic = floors
    return [
        (router, corpus, "loto top-1", quality.top1, top1, quality.top1 >= top1),
        (router, corpus, "loto hit@3", quality.hit_at_3, hit3, quality.hit_at_3 >= hit3),
        (router, corpus, "ids per answer (ceiling)", quality.ids_per_answer, ids, quality.ids_per_answer <= ids),
        (
            router,
            corpus,
            "loto off-topic",
            quality.off_topic_fallback,
            off_topic,
            quality.off_topic_fallback >= off_topic,
        ),
    ]


def label_rows(router: str, corpus: str, quality: Any, floors: tuple[float, ...]) -> list[Row]:
    false_reveal, recall, off_topic = floors
    return [
        (router, corpus, "false reveal (ceiling)", quality.false_reveal, false_reveal,
         quality.false_reveal <= false_reveal),
        (router, corpus, "recall", quality.recall, recall, quality.recall >= recall),
        (router, corpus, "off-topic fallback", quality.off_topic_fallback, off_topic,
         quality.off_topic_fallback >= off_topic),
    ]  # fmt: skip


def router_rows(router: str, sample: Path | None, count: int | None) -> tuple[list[Row], Any]:
    builtin, icae, built_labels, icae_labels = FLOORS[router]
    tasks = list_tasks()[:count]
    rows = trigger_rows(router, "builtin", builtin_levels(tasks), builtin)
    quality = labelled("router_eval_builtin.jsonl", LabelData(), router, tasks)
    rows += label_rows(router, "builtin", quality, built_labels)
    sample_quality = None
    if sample is not None:
        aliases = [f"realcode@00{i}" for i in range(1, 6)][:count]
        rows += trigger_rows(router, "icae-sample", icae_levels(sample, aliases), icae)
        sample_quality = labelled("router_eval_icae_sample.jsonl", LabelData(sample), router, aliases)
        rows += label_rows(router, "icae-sample", sample_quality, icae_labels)
    return rows, sample_quality


def unasked_rows(qualities: dict[str, Any]) -> list[Row]:
    if not {"cascade", "distilled"} <= set(qualities) or qualities["cascade"] is None:
        return []
    cascade, distilled = qualities["cascade"].unasked_reveals, qualities["distilled"].unasked_reveals
    ceiling = min(CASCADE_UNASKED, distilled)
    return [("cascade", "icae-sample", "unasked reveals (ceiling)", cascade, ceiling, cascade <= ceiling)]


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--routers", default=",".join(FLOORS), help="comma-separated, of " + ", ".join(FLOORS))
    parser.add_argument("--sample", default=str(SAMPLE), help="the ICAE sample (skipped when absent)")
    parser.add_argument("--tasks", type=int, default=None, help="only the first N tasks of each corpus (a quick run)")
    args = parser.parse_args(argv)
    if args.tasks is not None and args.tasks < 1:
        parser.error(f"--tasks must be >= 1, got {args.tasks}")
    routers = [r for r in args.routers.split(",") if r]
    unknown = sorted(set(routers) - set(FLOORS))
    if unknown:
        parser.error(f"unknown routers {unknown}; expected some of {list(FLOORS)}")
    sample = Path(args.sample) if Path(args.sample).is_dir() else None
    rows: list[Row] = []
    qualities: dict[str, Any] = {}
    for router in routers:
        router_rows_, qualities[router] = router_rows(router, sample, args.tasks)
        rows += router_rows_
    rows += unasked_rows(qualities)
    out(f"{'router':10} {'corpus':12} {'figure':26} {'value':>7} {'floor':>7}  ok")
    for router, corpus, figure, value, floor, ok in rows:
        out(f"{router:10} {corpus:12} {figure:26} {value:7.3f} {floor:7.3f}  {'ok' if ok else 'BELOW'}")
    if sample is None:
        out(f"(no ICAE sample at {args.sample}: its figures were skipped)")
    return 0 if all(row[-1] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
