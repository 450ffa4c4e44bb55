"""Router quality: leave-one-trigger-out on the ICAE sample and the built-in tasks, plus off-topic rejection.

Prints top-1, hit@3, answered rate, mean ids per answered reply, off-topic fallback rate and median latency
per question, for each corpus and router.

Usage: python benchmarks/router_quality.py [--routers lexical,embedding] [--sample ../shared/icae-sample] [--misses N]
       [--fit] [--llm-base-url URL --llm-model NAME [--llm-api-key KEY] [--llm-cache FILE]]

``--fit`` refits the chosen routers' weights on the built-in tasks only (the way their defaults were obtained),
prints them, and evaluates the refitted weights. The ``llm`` router runs only with ``--llm-base-url``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from icae_env.tasks import list_tasks, load_icae_bench, load_task
from icae_env.tasks.models import UserAgentData
from icae_env.user_agent.evaluation import evaluate_router, fit_lexical_weights, fit_router_weights

LEVELS = ("L1", "L2", "L3")
Levels = list[tuple[str, UserAgentData]]


def sample_levels(root: Path) -> Iterator[tuple[str, UserAgentData]]:
    aliases = sorted(p.stem for p in (root / "user_agent" / "prd_json").glob("*.json"))
    for alias in aliases:
        task = load_icae_bench(root, alias)
        for level in LEVELS:
            yield f"{alias}/{level}", task.user_agent_data(level)


def builtin_levels() -> Iterator[tuple[str, UserAgentData]]:
    for name in list_tasks():
        task = load_task(name)
        for level in LEVELS:
            yield f"{name}/{level}", task.user_agent_data(level)


def fitted_options(router: str, levels: Levels) -> dict[str, Any]:
    """Return router options with weights refitted on ``levels`` (printed)."""
    if router == "lexical":
        weights: Any = fit_lexical_weights(levels)
    elif router == "embedding":
        from icae_env.user_agent.embedding import EMBEDDING_COEFFICIENTS, EmbeddingRouter, EmbeddingWeights

        base = EmbeddingWeights()
        weights = fit_router_weights(levels, EmbeddingRouter, EMBEDDING_COEFFICIENTS, base)
    else:
        raise SystemExit(f"--fit: router {router!r} has no fitted weights")
    print(f"fitted {router} weights (built-in tasks): {weights}")
    return {"weights": weights}


def router_options(router: str, args: argparse.Namespace) -> dict[str, Any]:
    if router != "llm":
        return {}
    options = {"base_url": args.llm_base_url, "model": args.llm_model, "api_key": args.llm_api_key}
    return options | ({"cache_path": args.llm_cache} if args.llm_cache else {})


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--routers", default="lexical", help="comma-separated: lexical, embedding, llm")
    parser.add_argument("--sample", default=str(Path(__file__).resolve().parents[2] / "shared" / "icae-sample"))
    parser.add_argument("--misses", type=int, default=0, help="print this many misses per corpus")
    parser.add_argument("--fit", action="store_true", help="refit the routers' weights on the built-in tasks first")
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
    corpora = {"builtin": list(builtin_levels())}
    if Path(args.sample).is_dir():
        corpora["icae-sample"] = list(sample_levels(Path(args.sample)))
    routers = {router: router_options(router, args) for router in args.routers.split(",")}
    if args.fit:
        routers = {router: options | fitted_options(router, corpora["builtin"]) for router, options in routers.items()}
    header = f"{'corpus':12} {'router':9} {'n':>5} {'top1':>6} {'hit@3':>6} {'answered':>8} {'ids/ans':>7} "
    print(header + f"{'offtopic-fb':>11} {'median ms':>9}")
    for router, options in routers.items():
        for corpus, levels in corpora.items():
            q = evaluate_router(levels, router=router, **options)
            print(
                f"{corpus:12} {router:9} {q.questions:5d} {q.top1:6.3f} {q.hit_at_3:6.3f} {q.answered:8.3f} "
                f"{q.ids_per_answer:7.2f} {q.off_topic_fallback:11.3f} {q.median_ms:9.3f}"
            )
            for miss in q.misses[: args.misses]:
                print("   miss", miss)
    print(
        "\ngoals (lexical): top1 >= 0.80, hit@3 >= 0.90, answered >= 0.90, ids/ans <= 1.6, off-topic >= 0.95, "
        "median < 1 ms"
    )
    print("goals (embedding): top1 >= 0.85, median < 20 ms")


if __name__ == "__main__":
    main()
