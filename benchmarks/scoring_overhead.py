"""Scorer and sandbox overhead, measured as ratios in one run.

1. ``score()`` wall time vs running the same ``rcb_tests/test.sh`` directly (plain subprocess) on a copied
   directory holding the same stripped cases, per built-in task over all tiers (goal <= 1.2x).
2. ``LocalSandbox.exec("true")`` vs ``subprocess.run(["bash", "-c", "true"])`` (goal <= 1.3x).

Usage: python benchmarks/scoring_overhead.py [--tasks N] [--repeats R] [--execs E]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from icae_env.sandbox import make_sandbox
from icae_env.scoring import score
from icae_env.tasks import TIER_DIRS, TIERS, list_tasks, load_task

# The sandbox's environment, so that both sides run the same interpreters (a pyenv shim on the host PATH
# would make the direct run slower and flatter the scorer).
SAME_ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG": "C.UTF-8",
    "HOME": tempfile.gettempdir(),
    "PYTHONDONTWRITEBYTECODE": "1",
}


def direct_run(task) -> float:
    """Copy the golden, inject stripped cases and run test.sh per tier with plain subprocesses."""
    started = time.perf_counter()
    for tier in TIERS:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / "repo"
            shutil.copytree(task.golden_dir, repo)
            cases = repo / "rcb_tests" / TIER_DIRS[tier]
            cases.mkdir(parents=True, exist_ok=True)
            for case_file in task.tests.tier(tier):
                (cases / f"{case_file.stem}.json").write_text(json.dumps(case_file.to_json(with_expected=False)))
            subprocess.run(
                ["bash", "rcb_tests/test.sh", "--cases-dir", TIER_DIRS[tier]],
                cwd=repo,
                env=SAME_ENV,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
    return time.perf_counter() - started


def scorer_run(task) -> float:
    started = time.perf_counter()
    report = score(task, task.golden_dir, structure=False)
    assert report.overall == 1.0, f"golden of {task.id} did not score 100%"
    return time.perf_counter() - started


def exec_ratio(count: int) -> tuple[float, float]:
    with make_sandbox("local") as box:
        box.exec("true")
        started = time.perf_counter()
        for _ in range(count):
            box.exec("true")
        sandbox_s = (time.perf_counter() - started) / count
    started = time.perf_counter()
    for _ in range(count):
        subprocess.run(["bash", "-c", "true"], check=False)
    raw_s = (time.perf_counter() - started) / count
    return sandbox_s, raw_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=0, help="number of built-in tasks (0 = all)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--execs", type=int, default=500)
    args = parser.parse_args()
    names = list_tasks()[: args.tasks or None]
    print(f"{'task':24} {'direct s':>9} {'scorer s':>9} {'ratio':>6}")
    total_direct = total_scorer = 0.0
    for name in names:
        task = load_task(name)
        direct, scored = [], []
        for _ in range(args.repeats):  # interleaved so that machine noise hits both sides alike
            direct.append(direct_run(task))
            scored.append(scorer_run(task))
        d, s = statistics.median(direct), statistics.median(scored)
        total_direct, total_scorer = total_direct + d, total_scorer + s
        print(f"{name:24} {d:9.3f} {s:9.3f} {s / d:6.2f}")
    print(
        f"{'ALL':24} {total_direct:9.3f} {total_scorer:9.3f} {total_scorer / total_direct:6.2f}"
        "   (scorer / direct test.sh, goal <= 1.2)"
    )
    sandbox_s, raw_s = exec_ratio(args.execs)
    print(
        f"\nexec 'true': local sandbox {sandbox_s * 1e3:.3f} ms, raw subprocess {raw_s * 1e3:.3f} ms, "
        f"ratio {sandbox_s / raw_s:.2f}   (goal <= 1.3)"
    )


if __name__ == "__main__":
    main()
