"""Docker sandbox overhead, measured as ratios in one run.

1. Cold reset: ``env.reset()`` with the docker backend (container + shell session) vs ``docker run --rm IMAGE true``
   (goal <= 1.1x).
2. Warm-pool reset: ``env.reset()`` with ``warm_pool=1`` (goal <= 0.1 s).
3. Exec: ``env.step(bash "true")`` vs ``docker exec CONTAINER true`` on a running container.

Usage: python benchmarks/docker_overhead.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

import icae_env
from icae_env.sandbox.docker import drain_pools, warm_pool_size
from icae_env.sandbox.images import BASE_IMAGE


def timed(fn, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    docker_run = ["docker", "run", "--rm", "--network", "none", "--init", BASE_IMAGE, "true"]
    plain = timed(lambda: subprocess.run(docker_run, check=True, capture_output=True), args.repeats)

    cold_env = icae_env.make("icae/ProjectBuild-v0", task="builtin/config-lint", sandbox="docker")
    cold = timed(lambda: cold_env.reset(seed=0), args.repeats)

    warm_env = icae_env.make(
        "icae/ProjectBuild-v0", task="builtin/config-lint", sandbox="docker", sandbox_options={"warm_pool": 1}
    )
    warm_samples = []
    for _ in range(args.repeats):
        warm_env.reset(seed=0)
        box = warm_env.unwrapped._state.sandbox
        deadline = time.monotonic() + 30
        while warm_pool_size(box) < 1 and time.monotonic() < deadline:  # let the pool refill between resets
            time.sleep(0.05)
        started = time.perf_counter()
        warm_env.reset(seed=0)
        warm_samples.append(time.perf_counter() - started)
    warm = statistics.median(warm_samples)

    cold_env.reset(seed=0)
    container = cold_env.unwrapped._state.sandbox.container.id
    step = timed(lambda: cold_env.step({"tool": "bash", "command": "true"}), args.repeats * 20)
    raw_exec = timed(lambda: subprocess.run(["docker", "exec", container, "true"], check=True), args.repeats)
    cold_env.close()
    warm_env.close()
    drain_pools()

    print(f"{'measure':38} {'icae-env':>10} {'docker CLI':>10} {'ratio':>7}")
    print(f"{'cold reset vs docker run --rm true':38} {cold:10.3f} {plain:10.3f} {cold / plain:7.2f}   (goal <= 1.1)")
    print(f"{'warm-pool reset (s)':38} {warm:10.4f} {'':>10} {'':>7}   (goal <= 0.1 s)")
    print(f"{'step(bash true) vs docker exec true':38} {step:10.4f} {raw_exec:10.4f} {step / raw_exec:7.3f}")


if __name__ == "__main__":
    main()
