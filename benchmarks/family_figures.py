"""Per-family figures of issue 16 over N generated tasks, measured in this run (the closing note's table).

Per family (a held-out family's test split, every other family's train split unless ``--split`` says otherwise),
tasks ``0..N-1`` are generated and certified in-process, and it prints:

* certified / rejected tasks (with each rejection's first reason) and re-planned ones (certified on a later attempt);
* the minimum over tasks of the fewest hidden cases an ablated decision fails (bound >= 2);
* the mean share of held-out paraphrases reaching their record in the top 3 (``--router``, the default router by
  default; certification asks each of :data:`~icae_env.families.certify.CERTIFY_ROUTERS`; the bound >= 0.85 is
  the first's);
* the median and maximum Overall of the golden with every hidden decision at its naive default (median <= 0.35);
* tells found in an L1 text or a public case file, re-checked here apart from certification (bound 0);
* for families with a JavaScript golden, how many cases of every tier the JavaScript golden prints exactly as the
  Python golden's expected output (one ``node`` process per family);
* certified tasks per minute (in-process).

Run: python benchmarks/family_figures.py [--families all] [--count 200] [--split auto|train|test]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from icae_env.families import Generated, TaskRejected, family_names, generate, get_family  # noqa: E402
from icae_env.families.certify import CERTIFY_ROUTERS, paraphrase_reach, reach_metric, reach_share  # noqa: E402
from icae_env.families.javascript import javascript_outputs  # noqa: E402
from icae_env.registration import DEFAULT_ROUTER, ROUTERS  # noqa: E402


def _tells_revealed(generated: Generated) -> int:
    family, plan = get_family(generated.plan.family), generated.plan
    public = [text.lower() for path, text in generated.files.items() if path.startswith("cases/public/")]
    texts = [generated.task.prd("L1").lower(), *public]
    needles = [
        tell.format(**plan.skin.words).lower()
        for name in plan.hidden
        for tell in family.decision(name).value(plan.values[name]).tells
    ]
    return sum(any(needle in text for text in texts) for needle in needles)


def _cases(generated: Generated) -> tuple[list[Any], list[str]]:
    tests = generated.task.tests
    cases = [c for tier in ("public", "native", "enhanced") for f in tests.tier(tier) for c in f.cases]
    return [c.input for c in cases], [c.expected_text for c in cases]


def _agreement(tasks: list[Generated]) -> str:
    family = get_family(tasks[0].plan.family)
    if "javascript" not in family.languages:
        return "-"
    pairs = [_cases(g) for g in tasks]
    jobs = [(family.golden(g.plan, "javascript"), inputs) for g, (inputs, _) in zip(tasks, pairs, strict=True)]
    outputs = javascript_outputs(jobs)
    agree = sum(o == e for out, (_, want) in zip(outputs, pairs, strict=True) for o, e in zip(out, want, strict=True))
    return f"{agree}/{sum(len(want) for _, want in pairs)}"


def _reach(tasks: list[Generated], router: str) -> float:
    """The mean share of held-out paraphrases reaching their record in the top 3 with ``router``."""
    if router in CERTIFY_ROUTERS:
        return statistics.mean(g.certificate.metrics[reach_metric(router)] for g in tasks)
    family = get_family(tasks[0].plan.family)
    return statistics.mean(reach_share(paraphrase_reach(family, g.plan, g.task, router)) for g in tasks)


def _figures(name: str, split: str, count: int, router: str) -> tuple[list[str], Counter[str]]:
    started, tasks, rejected = time.perf_counter(), [], Counter[str]()
    for index in range(count):
        try:
            tasks.append(generate(name, split, index))
        except TaskRejected as exc:
            rejected[str(exc).split("attempt 0: ", 1)[-1].split(";")[0][:90]] += 1
    rate = 60 * len(tasks) / (time.perf_counter() - started)
    fails = [g.certificate.metrics["min_ablation_fails"] for g in tasks]
    naive = [g.certificate.metrics["naive_overall"] for g in tasks]
    row = [
        name, split, f"{len(tasks)}/{sum(rejected.values())}", str(sum(g.attempt > 0 for g in tasks)),
        f"{min(fails):.0f}", f"{_reach(tasks, router):.3f}",
        f"{statistics.median(naive):.3f} ({max(naive):.3f})", str(sum(_tells_revealed(g) for g in tasks)),
        _agreement(tasks), f"{rate:.0f}",
    ]  # fmt: skip
    return row, rejected


def main() -> None:
    """Print the figures table, then every rejection reason."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="all")
    parser.add_argument("--count", type=int, default=200, help="task indices per family")
    parser.add_argument("--split", choices=("auto", "train", "test"), default="auto")
    parser.add_argument("--router", choices=sorted(ROUTERS), default=DEFAULT_ROUTER,
                        help="router whose paraphrase reach is printed (certification: CERTIFY_ROUTERS)")  # fmt: skip
    args = parser.parse_args()
    names = family_names() if args.families == "all" else args.families.split(",")
    if set(names) - set(family_names()):
        parser.error(f"unknown families {sorted(set(names) - set(family_names()))}; expected {family_names()}")
    head = ("family", "split", "certified/rejected", "re-planned", "min ablation fails",
            f"paraphrase top-3 ({args.router})", "naive median (max)", "tells", "Py/JS agree", "tasks/min")  # fmt: skip
    print(" | ".join(head))
    reasons = []
    for name in names:
        split = args.split if args.split != "auto" else ("test" if get_family(name).held_out else "train")
        row, rejected = _figures(name, split, args.count, args.router)
        print(" | ".join(row), flush=True)
        reasons += [f"  {name}: {times} x {reason}" for reason, times in rejected.most_common()]
    print("\nbounds: min ablation fails >= 2, paraphrase top-3 >= 0.85, naive median <= 0.35 (max <= 0.5), tells 0")
    print("rejections:" if reasons else "rejections: none", *reasons, sep="\n")


if __name__ == "__main__":
    main()
