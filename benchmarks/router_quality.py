"""Router quality: leave-one-trigger-out on the ICAE sample and the built-in tasks, plus off-topic rejection.

Prints top-1, hit@3, answered rate, mean ids per answered reply, off-topic fallback rate and median latency
per question, for each corpus and router.

Usage: python benchmarks/router_quality.py [--routers lexical,embedding] [--sample ../shared/icae-sample] [--misses N]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from icae_env.tasks import list_tasks, load_icae_bench, load_task
from icae_env.user_agent.evaluation import evaluate_router

LEVELS = ("L1", "L2", "L3")


def sample_levels(root: Path):
    aliases = sorted(p.stem for p in (root / "user_agent" / "prd_json").glob("*.json"))
    for alias in aliases:
        task = load_icae_bench(root, alias)
        for level in LEVELS:
            yield f"{alias}/{level}", task.user_agent_data(level)


def builtin_levels():
    for name in list_tasks():
        task = load_task(name)
        for level in LEVELS:
            yield f"{name}/{level}", task.user_agent_data(level)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--routers", default="lexical")
    parser.add_argument("--sample", default=str(Path(__file__).resolve().parents[2] / "shared" / "icae-sample"))
    parser.add_argument("--misses", type=int, default=0, help="print this many misses per corpus")
    args = parser.parse_args()
    corpora = {"builtin": list(builtin_levels())}
    if Path(args.sample).is_dir():
        corpora["icae-sample"] = list(sample_levels(Path(args.sample)))
    header = f"{'corpus':12} {'router':9} {'n':>5} {'top1':>6} {'hit@3':>6} {'answered':>8} {'ids/ans':>7} "
    print(header + f"{'offtopic-fb':>11} {'median ms':>9}")
    for router in args.routers.split(","):
        for corpus, levels in corpora.items():
            q = evaluate_router(levels, router=router)
            print(f"{corpus:12} {router:9} {q.questions:5d} {q.top1:6.3f} {q.hit_at_3:6.3f} {q.answered:8.3f} "
                  f"{q.ids_per_answer:7.2f} {q.off_topic_fallback:11.3f} {q.median_ms:9.3f}")
            for miss in q.misses[: args.misses]:
                print("   miss", miss)
    print("\ngoals (lexical): top1 >= 0.80, hit@3 >= 0.90, answered >= 0.90, ids/ans <= 1.6, off-topic >= 0.95, "
          "median < 1 ms")


if __name__ == "__main__":
    main()
