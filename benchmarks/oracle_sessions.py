"""Cost of Oracle sessions: one router index shared per (task, level) against one index per session.

A harness opens a session per run and asks a few questions about one task. Before the routers were shared, each
session's agent built its own router index for the task; now every session of a (task, level) uses one. Both
workloads open ``--sessions`` sessions and ask ``--questions`` questions in each (built-in tasks in turn, L1);
the memory held at the end (tracemalloc) and the wall time are printed, with their ratios, measured in one run.

Run: python benchmarks/oracle_sessions.py [--sessions 500] [--questions 3]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable

from icae_env.tasks import list_tasks, load_task
from icae_env.user_agent.grounded import GroundedUserAgent
from icae_env.user_agent.oracle import OracleService

QUESTIONS = ("what is the output format?", "how are errors reported?", "what are the defaults?", "any limits?")


def shared(sessions: int, questions: int, tasks: list[str]) -> Callable[[], object]:
    """The service: sessions share one router per task and level."""

    def run() -> object:
        service = OracleService(max_sessions=sessions)
        for i in range(sessions):
            append_id = service.init({"key": f"run-{i}"})["append_id"]
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
            agent = GroundedUserAgent(data[tasks[i % len(tasks)]], router="lexical")
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


def main() -> None:
    """Run both workloads and print time, memory and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--questions", type=int, default=3, choices=range(1, len(QUESTIONS) + 1))
    args = parser.parse_args()
    tasks = list_tasks()
    load_task(tasks[0]).user_agent_data("L1")  # warm imports and the task cache for both
    own_s, own_mib = measure(per_session(args.sessions, args.questions, tasks))
    shared_s, shared_mib = measure(shared(args.sessions, args.questions, tasks))
    print(f"{args.sessions} sessions x {args.questions} questions over {len(tasks)} built-in tasks (L1)")
    print(f"router per session : {own_s:7.2f} s  {own_mib:8.1f} MiB")
    print(f"shared routers     : {shared_s:7.2f} s  {shared_mib:8.1f} MiB")
    print(f"ratio (per session / shared): time {own_s / shared_s:.1f}x, memory {own_mib / shared_mib:.1f}x")


if __name__ == "__main__":
    main()
