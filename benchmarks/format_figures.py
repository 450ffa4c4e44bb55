"""Issue 50's figures: is every generated task's output wording knowable at L1, L2 and L3?

Per family, tasks ``0..N-1`` (a held-out family's test split, every other family's train split) are planned and
built **without** rejecting any failed certificate (so a broken family shows instead of being re-planned away), and
it prints
per family and level:

* ``lines_off``: output lines (all tiers) matching no declared template or more than one (certification: 0);
* ``unstated``: templates a task prints that no channel of the level states (certification: 0);
* ``unreachable``: the share of hidden cases holding a word (three or more letters, the case's input words
  removed) that no level-visible channel contains (goal < 1%);
* ``agent``: of the first ``--agent`` tasks, how many the level-limited reader (``baselines/level_limited.py``,
  the default router, plain questions only) recovers every template of;
* ``certified``: of the first ``--certify`` tasks (default: all; the others skip the routing check, the costly
  one), those whose full certificate passes (every check, every certification router) at the first
  attempt that builds (an attempt whose case search finds no distinguishing input is re-planned, as generation does).

``--diagnose FAMILY`` prints the distinct certification failures of the family's tasks instead.

Run (from the repository root):
    python benchmarks/format_figures.py [--families all] [--count 200] [--agent 20] [--certify N]
    python benchmarks/format_figures.py --diagnose csv-validator [--count 20]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.level_limited import read_formats  # noqa: E402
from icae_env.families.cases import GenerationError  # noqa: E402
from icae_env.families.certify import Certificate  # noqa: E402
from icae_env.families.formats import (  # noqa: E402
    LEVELS,
    Channels,
    Formats,
    public_lines,
    template_problems,
    unreachable_share,
    unstated,
)
from icae_env.families.generation import ATTEMPTS, build  # noqa: E402
from icae_env.families.plan import Knobs, plan_task  # noqa: E402
from icae_env.families.registry import family_names, get_family  # noqa: E402
from icae_env.families.spec import Family, Plan  # noqa: E402
from icae_env.tasks.models import Task  # noqa: E402
from icae_env.user_agent.grounded import GroundedUserAgent  # noqa: E402


def _split(family: Family) -> str:
    return "test" if family.held_out else "train"


def missed_templates(family: Family, plan: Plan, task: Task, level: str) -> list[str]:
    """Templates the task prints that the level-limited reader did not recover at ``level``."""
    agent = GroundedUserAgent.from_task(task, level=level)
    reading = read_formats(task.prd(level), task.tests.public, lambda q: agent.ask(q).text)
    return [t.shown for t in unstated(Formats.of(family, plan), task, Channels((reading.text,), public_lines(task)))]


def _built(family: Family, index: int, route: bool = True) -> tuple[Plan, Task, Certificate] | None:
    """The first attempt at task ``index`` that builds (certified or not), as generation would try them."""
    for attempt in range(ATTEMPTS):
        plan = plan_task(family, _split(family), index, Knobs(), attempt)
        try:
            task, _, cert = build(family, plan, route)
            return plan, task, cert
        except GenerationError:
            continue
    return None


def _row(name: str, count: int, agent_count: int, certify_count: int) -> list[str]:
    family = get_family(name)
    off = unstated = certified = unbuilt = 0
    shares: dict[str, list[float]] = {level: [] for level in LEVELS}
    recovered = Counter[str]()
    for index in range(count):
        built = _built(family, index, route=index < certify_count)
        if built is None:
            unbuilt += 1
            continue
        plan, task, cert = built
        certified += index < certify_count and cert.ok
        problems = template_problems(Formats.of(family, plan), task)
        off += sum("output line" in p for p in problems)
        unstated += sum("is not stated" in p for p in problems)
        for level in LEVELS:
            shares[level].append(unreachable_share(task, level)[0])
            if index < agent_count:
                recovered[level] += not missed_templates(family, plan, task, level)
    cells = [f"{100 * sum(v) / len(v):.1f}%" for v in shares.values()]
    agent = "/".join(str(recovered[level]) for level in LEVELS)
    tasks = f"{count - unbuilt}" + (f" ({unbuilt} unbuilt)" if unbuilt else "")
    return [
        name,
        tasks,
        str(off),
        str(unstated),
        *cells,
        f"{agent} of {min(agent_count, count)}",
        f"{certified} of {min(certify_count, count)}",
    ]


def _diagnose(name: str, count: int) -> None:
    family = get_family(name)
    seen = Counter[str]()
    for index in range(count):
        built = _built(family, index)
        if built is None:
            seen["no attempt builds (no input tells an ablation apart)"] += 1
            continue
        for failure in built[2].failures:
            seen[failure[:200]] += 1
    for failure, n in seen.most_common():
        print(f"{n:4d}  {failure}")
    print(f"{len(seen)} distinct failures over {count} tasks")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--families", default="all")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--agent", type=int, default=20)
    parser.add_argument("--certify", type=int, default=None, help="tasks fully certified (default: all)")
    parser.add_argument("--diagnose", default=None, metavar="FAMILY")
    args = parser.parse_args(argv)
    if args.count < 1 or args.agent < 0 or (args.certify is not None and args.certify < 0):
        parser.error("--count must be >= 1, --agent and --certify >= 0")
    names = family_names() if args.families == "all" else args.families.split(",")
    unknown = sorted(set(names + ([args.diagnose] if args.diagnose else [])) - set(family_names()))
    if unknown:
        parser.error(f"unknown families {unknown}; known: {family_names()}")
    if args.diagnose:
        _diagnose(args.diagnose, args.count)
        return 0
    head = ["family", "tasks", "lines_off", "unstated", "unreach_L1", "unreach_L2", "unreach_L3", "agent L1/L2/L3"]
    print(" | ".join([*head, "certified"]), flush=True)
    for name in names:
        certify = args.count if args.certify is None else args.certify
        print(" | ".join(_row(name, args.count, args.agent, certify)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
