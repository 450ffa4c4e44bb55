"""Router quality floors (leave-one-trigger-out), so that a regression in the router fails the suite.

The floors are the values measured when the router was last calibrated, a little lower; the issue's targets
(top-1 >= 0.80, hit@3 >= 0.90) are printed by benchmarks/router_quality.py.
"""

from icae_env.tasks import list_tasks, load_icae_bench, load_task
from icae_env.user_agent.evaluation import evaluate_router


def test_builtin_tasks():
    levels = [(f"{n}/{lv}", load_task(n).user_agent_data(lv)) for n in list_tasks() for lv in ("L1", "L2", "L3")]
    quality = evaluate_router(levels)
    assert quality.top1 >= 0.68 and quality.answered >= 0.90 and quality.ids_per_answer <= 1.6
    assert quality.off_topic_fallback >= 0.95


def test_icae_sample(icae_sample):
    levels = [
        (f"{alias}/{lv}", load_icae_bench(icae_sample, alias).user_agent_data(lv))
        for alias in [f"realcode@00{i}" for i in range(1, 6)]
        for lv in ("L1", "L2", "L3")
    ]
    quality = evaluate_router(levels)
    assert quality.top1 >= 0.75 and quality.hit_at_3 >= 0.80 and quality.answered >= 0.90
    assert quality.ids_per_answer <= 1.6 and quality.off_topic_fallback >= 0.95
