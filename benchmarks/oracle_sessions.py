"""Cost of Oracle sessions: shared router indexes, and what persisting every question costs per question.

A harness opens a session per run and asks a few questions about one task. Before the routers were shared, each
session's agent built its own router index for the task; now every session of a (task, level) uses one. Both
workloads open ``--sessions`` sessions and ask ``--questions`` questions in each (built-in tasks in turn, L1);
the memory held at the end (tracemalloc) and the wall time are printed, with their ratios, measured in one run.

Then the per-question latency of ``OracleService.interaction`` (the same workload, routers warm) with sessions
kept in memory, in a state directory (``--state-dir``: one appended line per question), and in a state directory
with ``--fsync``; and the cost of the first question of a session reloaded from the state directory after a
restart (settings and log read, agent rebuilt by replaying the logged questions). The state directories are made
under ``--state-root`` (default: the system's temp directory), so pick the disk the server will use.

Run: python benchmarks/oracle_sessions.py [--sessions 500] [--questions 3] [--state-root DIR]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from icae_env.registration import DEFAULT_ROUTER
from icae_env.serve.oracle import PUBLISHED_KEY, OracleService
from icae_env.tasks import list_tasks, load_task
from icae_env.user_agent.grounded import GroundedUserAgent

QUESTIONS = ("what is the output format?", "how are errors reported?", "what are the defaults?", "any limits?")


def shared(sessions: int, questions: int, tasks: list[str]) -> Callable[[], object]:
    """The service: sessions share one router per task and level."""

    def run() -> object:
        service = OracleService(max_sessions=sessions)
        for i in range(sessions):
            append_id = service.init({"key": PUBLISHED_KEY, "model": f"run-{i}"})["append_id"]
            for question in QUESTIONS[:questions]:
                service.interaction({"append_id": append_id, "task_id": tasks[i % len(tasks)], "question": question})
        return service

    return run


def per_session(sessions: int, questions: int, tasks: list[str]) -> Callable[[], object]:
    """What each session did before: its own agent with its own router index."""
    data = {name: load_task(name).user_agent_data("L1") for name in tasks}

    def run() -> object:
        agents = []
        for i in range(sessions):
            agent = GroundedUserAgent(data[tasks[i % len(tasks)]], router=DEFAULT_ROUTER)
            for question in QUESTIONS[:questions]:
                agent.ask(question)
            agents.append(agent)
        return agents

    return run


def measure(workload: Callable[[], object]) -> tuple[float, float]:
    """Return (seconds, MiB held by the result)."""
    tracemalloc.start()
    start = time.perf_counter()
    result = workload()
    seconds = time.perf_counter() - start
    held = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    del result
    return seconds, held


def question_latencies(service: OracleService, sessions: int, questions: int, tasks: list[str]) -> list[float]:
    """Seconds of each ``interaction`` call of the workload (routers warmed on a first session per task)."""
    for task in tasks:
        warm = service.init({"key": PUBLISHED_KEY, "model": "warm"})["append_id"]
        service.interaction({"append_id": warm, "task_id": task, "question": QUESTIONS[0]})
    latencies = []
    for i in range(sessions):
        append_id = service.init({"key": PUBLISHED_KEY, "model": f"run-{i}"})["append_id"]
        for question in QUESTIONS[:questions]:
            request = {"append_id": append_id, "task_id": tasks[i % len(tasks)], "question": question}
            start = time.perf_counter()
            service.interaction(request)
            latencies.append(time.perf_counter() - start)
    return latencies


def resume_latencies(state_dir: Path, sessions: int, questions: int, tasks: list[str]) -> list[float]:
    """Seconds of the first question of each session of ``state_dir`` after a restart."""
    with OracleService(state_dir=state_dir) as service:
        for task in tasks:  # warm the routers, as a running server has them
            warm = service.init({"key": PUBLISHED_KEY, "model": "warm"})["append_id"]
            service.interaction({"append_id": warm, "task_id": task, "question": QUESTIONS[0]})
        ids = sorted(p.name for p in (state_dir / "sessions").iterdir())
        latencies = []
        for i, append_id in enumerate(ids[:sessions]):
            request = {"append_id": append_id, "task_id": tasks[i % len(tasks)], "question": QUESTIONS[questions - 1]}
            start = time.perf_counter()
            service.interaction(request)
            latencies.append(time.perf_counter() - start)
    return latencies


def summary(latencies: list[float]) -> str:
    """Median, p95 and mean in milliseconds."""
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    median, mean = statistics.median(ordered), statistics.fmean(ordered)
    return f"median {median * 1e3:6.3f} ms  p95 {p95 * 1e3:6.3f} ms  mean {mean * 1e3:6.3f} ms"


def persistence(args: argparse.Namespace, tasks: list[str]) -> None:
    """Print per-question latency in memory, in a state directory, with fsync, and after a restart."""
    print(f"per-question latency, {args.sessions} sessions x {args.questions} questions (routers warm)")
    with tempfile.TemporaryDirectory(dir=args.state_root) as root:
        stores: dict[str, dict[str, Any]] = {
            "in memory          ": {},
            "--state-dir        ": {"state_dir": Path(root) / "plain"},
            "--state-dir --fsync": {"state_dir": Path(root) / "fsync", "fsync": True},
        }
        for label, options in stores.items():
            with OracleService(max_sessions=args.sessions, **options) as service:
                print(f"  {label}: {summary(question_latencies(service, args.sessions, args.questions, tasks))}")
        resumed = resume_latencies(Path(root) / "plain", args.sessions, args.questions, tasks)
        print(f"  first question after a restart (reload + replay): {summary(resumed)}")


def main() -> None:
    """Run both workloads and print time, memory and ratios; then the persistence latencies."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--questions", type=int, default=3, choices=range(1, len(QUESTIONS) + 1))
    parser.add_argument("--state-root", type=Path, default=None, help="where to make the state directories")
    args = parser.parse_args()
    tasks = list_tasks()
    load_task(tasks[0]).user_agent_data("L1")  # warm imports and the task cache for both
    own_s, own_mib = measure(per_session(args.sessions, args.questions, tasks))
    shared_s, shared_mib = measure(shared(args.sessions, args.questions, tasks))
    print(f"{args.sessions} sessions x {args.questions} questions over {len(tasks)} built-in tasks (L1)")
    print(f"router per session : {own_s:7.2f} s  {own_mib:8.1f} MiB")
    print(f"shared routers     : {shared_s:7.2f} s  {shared_mib:8.1f} MiB")
    print(f"ratio (per session / shared): time {own_s / shared_s:.1f}x, memory {own_mib / shared_mib:.1f}x")
    persistence(args, tasks)


if __name__ == "__main__":
    main()
