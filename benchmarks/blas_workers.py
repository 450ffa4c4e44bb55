"""The cross-encoder's BLAS threads in worker processes, measured as ratios in one run.

Worker processes (one per core, as an ``AsyncVectorEnv`` of that many envs runs them) compute cross-encoder logits
that nothing remembered (the logit store off), once with the default limit (:func:`blas_threads`: 1 thread in a
worker) and once with BLAS's own thread count (``ICAE_ENV_BLAS_THREADS`` set to the core count); then one process
alone, with its own count and with 1. Each run lasts ``--seconds``; the figure is logits per second, all workers
together. Goal: the workers with the limit >= 2x the workers without it, on a machine with at least 2 cores.

Usage: python benchmarks/blas_workers.py [--seconds S] [--workers N]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time

from icae_env.user_agent.models.cross_encoder import THREADS_VARIABLE, blas_threads, default_cross_encoder

RECORDS = [f"Requests beyond a burst of {i} tokens are refused with the seconds until a retry." for i in range(5)]


def logits_per_second(seconds: float, tag: str) -> float:
    """Compute logits of new questions (``tag`` in each) for ``seconds`` in this process; return how many a second."""
    encoder = default_cross_encoder()
    encoder.store = None
    start, done = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        encoder.logits(f"what happens when request {tag}-{done} goes over the burst?", RECORDS)
        done += len(RECORDS)
    return done / (time.perf_counter() - start)


def _worker(seconds: float, tag: str, queue: multiprocessing.Queue[tuple[int | None, float]]) -> None:
    queue.put((blas_threads(), logits_per_second(seconds, tag)))


def workers(count: int, seconds: float, threads: str) -> tuple[float, int | None]:
    """Run ``count`` forked workers with ``$ICAE_ENV_BLAS_THREADS`` = ``threads``; return (logits/s, their limit)."""
    os.environ[THREADS_VARIABLE] = threads
    try:
        context = multiprocessing.get_context("fork")
        queue: multiprocessing.Queue[tuple[int | None, float]] = context.Queue()
        processes = [context.Process(target=_worker, args=(seconds, f"{threads}-{k}", queue)) for k in range(count)]
        for process in processes:
            process.start()
        results = [queue.get(timeout=seconds + 300) for _ in processes]  # a dead worker ends the run
        for process in processes:
            process.join()
    finally:
        os.environ.pop(THREADS_VARIABLE, None)
    return sum(rate for _, rate in results), results[0][0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    cores = str(os.cpu_count() or 1)
    default_cross_encoder()  # load once before forking, as a vector env's parent may
    limited, limit = workers(args.workers, args.seconds, "")
    unlimited, _ = workers(args.workers, args.seconds, cores)
    alone = logits_per_second(args.seconds, "alone")
    os.environ[THREADS_VARIABLE] = "1"
    alone_one = logits_per_second(args.seconds, "alone-1")
    print(f"{args.workers} workers, default limit ({limit} thread): {limited:6.1f} logits/s")
    print(f"{args.workers} workers, {cores} threads each:        {unlimited:6.1f} logits/s")
    print(f"ratio limited / unlimited: {limited / unlimited:.2f}x (goal >= 2x)")
    print(f"one process, its own threads: {alone:6.1f} logits/s; with 1 thread: {alone_one:6.1f} logits/s")


if __name__ == "__main__":
    main()
