"""Many live local episodes in one process: memory per episode, step and reset time, clean shutdown.

Builds ``--episodes`` N (default 1000) ``icae/ProjectBuild-v0`` environments with the ``local`` sandbox in this one
process (as TRL's ``environment_factory`` or a sync vector env does), resets each and steps each once with
``bash true``, all of them live at once (one bwrap'd bash session each). It reports:

1. errors: exceptions in make/reset/step, and steps whose command did not exit 0 (must be 0). Before the fix of
   the session's wait (``select()`` cannot watch a descriptor >= 1024), N near 340 already raised
   ``ValueError: filedescriptor out of range in select()``.
2. memory per episode: the USS (``Private_Clean + Private_Dirty`` of ``/proc/<pid>/smaps_rollup``) of the whole
   process tree (this Python process and every descendant: bwrap, bash) once all episodes are live, minus the
   same figure before the first one was made, divided by N (goal <= 3 MiB), split by process name. One warm-up
   episode runs and closes first, so one-time costs (imports, task loading) are not charged to the episodes
   (``--no-warm-up`` charges them). The system-wide rise of kernel memory per episode (``/proc/meminfo``: slab,
   kernel stacks, page tables) and the drop of ``MemAvailable`` are shown too: USS leaves out what the kernel
   keeps for each sandbox (namespaces, mounts, pipes, three processes), but these also count whatever else the
   machine does meanwhile.
3. step time (mean, p50, p95) and reset time (mean, p50, p95), each episode timed alone.
4. after closing every env: processes left below this one (must be 0) and sandbox temp directories left.

The soft ``RLIMIT_NOFILE`` is raised to the hard limit first (each live episode holds a few descriptors).

Usage: python benchmarks/live_episodes.py [--episodes 1000] [--task builtin/unidiff] [--no-warm-up]
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import icae_env  # noqa: E402
from icae_env.sandbox.local import TEMP_PREFIX, bwrap_available  # noqa: E402
from icae_env.sandbox.session import descendants  # noqa: E402

ENV_ID = "icae/ProjectBuild-v0"
TRUE = {"tool": "bash", "command": "true"}
GOAL_MIB = 3.0
MIB = 1024 * 1024


def raise_nofile_limit() -> tuple[int, int]:
    """Raise the soft descriptor limit to the hard one; return (old soft, new soft)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return soft, hard


def process_tree(root: int) -> list[int]:
    """``root`` and all its live descendants (the sandbox's own walk of ``/proc/<pid>/task/<tid>/children``)."""
    return [root, *descendants(root)]


def uss_bytes(pid: int) -> int | None:
    """Unique set size of ``pid`` (private clean + private dirty pages), None when it cannot be read."""
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return total


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


def tree_uss(root: int) -> dict[str, tuple[int, int]]:
    """USS of the process tree of ``root`` by process name: ``{name: (processes, bytes)}`` (``root`` as "self")."""
    usage: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for pid in process_tree(root):
        size = uss_bytes(pid)
        if size is None:
            continue
        row = usage["self" if pid == root else _name(pid)]
        row[0] += 1
        row[1] += size
    return {name: (count, size) for name, (count, size) in usage.items()}


MEMINFO_KEYS = ("MemAvailable", "Slab", "KernelStack", "PageTables")


def meminfo() -> dict[str, int]:
    """The ``MEMINFO_KEYS`` fields of ``/proc/meminfo``, in bytes."""
    found = {}
    with open("/proc/meminfo", encoding="ascii") as handle:
        for line in handle:
            key, _, rest = line.partition(":")
            if key in MEMINFO_KEYS:
                found[key] = int(rest.split()[0]) * 1024
    return found


def snapshot() -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """(tree USS by name, system memory fields) after a garbage collection."""
    gc.collect()
    return tree_uss(os.getpid()), meminfo()


def print_system(before: dict[str, int], after: dict[str, int], n: int) -> None:
    """Print the per-episode change of the system-wide memory fields."""
    kernel = " ".join(f"{key} {(after[key] - before[key]) / MIB / n:+.3f}" for key in MEMINFO_KEYS[1:])
    drop = (before["MemAvailable"] - after["MemAvailable"]) / MIB / n
    print(f"\nsystem-wide, MiB per episode: kernel {kernel}; MemAvailable drop {drop:.3f}")


def live_episode(task: str, errors: list[str]) -> tuple[Any, float | None, float | None]:
    """Make, reset and step one env; return (env or None, reset seconds, step seconds)."""
    env = None
    try:
        env = icae_env.make(ENV_ID, task=task, sandbox="local", max_steps=10)
        started = time.perf_counter()
        env.reset(seed=0)
        reset_s = time.perf_counter() - started
        started = time.perf_counter()
        obs, _, _, _, info = env.step(TRUE)
        step_s = time.perf_counter() - started
    except Exception as exc:  # noqa: BLE001 - every failure is counted and reported
        errors.append(f"{type(exc).__name__}: {exc}")
        return env, None, None
    if obs["exit_code"] != 0 or info.get("action_error"):
        errors.append(f"step exit code {obs['exit_code']}: {info.get('action_error')}")
    return env, reset_s, step_s


def summary(values: list[float]) -> str:
    """Mean, p50 and p95 in milliseconds."""
    if not values:
        return "n/a"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    p50 = ordered[len(ordered) // 2]
    return f"mean {statistics.fmean(values) * 1e3:7.2f}  p50 {p50 * 1e3:7.2f}  p95 {p95 * 1e3:7.2f}"


def print_memory(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]], n: int) -> float:
    """Print the USS table by process name; return the total MiB per episode."""
    header = f"{'process':10} {'count before':>12} {'count after':>11} {'USS delta MiB':>13} {'MiB/episode':>11}"
    print(header)
    print("-" * len(header))
    total = 0
    for name in sorted(set(before) | set(after), key=lambda k: (k != "self", k)):
        count0, size0 = before.get(name, (0, 0))
        count1, size1 = after.get(name, (0, 0))
        total += size1 - size0
        delta = (size1 - size0) / MIB
        print(f"{name:10} {count0:12d} {count1:11d} {delta:13.1f} {delta / n:11.3f}")
    per_episode = total / MIB / n
    print(f"{'total':10} {'':12} {'':11} {total / MIB:13.1f} {per_episode:11.3f}")
    return per_episode


def leftovers() -> tuple[int, int]:
    """(processes below this one, sandbox temp directories of this process) after a short wait for exits."""
    deadline = time.monotonic() + 5.0
    while len(process_tree(os.getpid())) > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    dirs = list(Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}{os.getpid()}-*"))
    return len(process_tree(os.getpid())) - 1, len(dirs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=1000, help="live episodes at once")
    parser.add_argument("--task", default="builtin/unidiff")
    parser.add_argument("--no-warm-up", action="store_true", help="charge one-time costs to the episodes too")
    args = parser.parse_args()
    if args.episodes < 1:
        parser.error(f"--episodes must be >= 1, got {args.episodes}")
    old_soft, soft = raise_nofile_limit()
    print(f"RLIMIT_NOFILE soft limit raised from {old_soft} to the hard limit {soft}")
    print(f"task {args.task}; {args.episodes} live episodes; bubblewrap {'on' if bwrap_available() else 'OFF'}\n")
    errors: list[str] = []
    if not args.no_warm_up:
        env, _, _ = live_episode(args.task, errors)
        if env is not None:
            env.close()
    before, system_before = snapshot()
    envs, resets, steps = [], [], []
    started = time.perf_counter()
    for _ in range(args.episodes):
        env, reset_s, step_s = live_episode(args.task, errors)
        envs.append(env)
        resets += [reset_s] if reset_s is not None else []
        steps += [step_s] if step_s is not None else []
    build_s = time.perf_counter() - started
    after, system_after = snapshot()
    n = max(args.episodes, 1)
    per_episode = print_memory(before, after, n)
    print_system(system_before, system_after, n)
    print(f"\n{'episodes':22} {args.episodes}")
    print(f"{'errors':22} {len(errors)}" + (f"  (first: {errors[0]})" if errors else ""))
    verdict = "ok" if per_episode <= GOAL_MIB else "MISS"
    print(f"{'memory per episode':22} {per_episode:.3f} MiB  ({verdict}, goal <= {GOAL_MIB:g})")
    print(f"{'reset ms':22} {summary(resets)}")
    print(f"{'step ms':22} {summary(steps)}")
    print(f"{'build all s':22} {build_s:.1f}")
    started = time.perf_counter()
    for env in envs:
        if env is not None:
            env.close()
    close_s = time.perf_counter() - started
    processes, dirs = leftovers()
    print(f"{'close all s':22} {close_s:.1f}")
    print(f"{'processes left':22} {processes}")
    print(f"{'temp dirs left':22} {dirs}")
    if errors or processes:
        sys.exit(1)


if __name__ == "__main__":
    main()
