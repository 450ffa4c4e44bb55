"""Per-family figures of issue 16 over N generated tasks, and the bounds every family keeps (``--check``).

**Figures** (the default): per family (a held-out family's test split, every other family's train split unless
``--split`` says otherwise), tasks ``0..N-1`` are generated and certified in-process, and it prints:

* certified / rejected tasks (with each rejection's first reason) and re-planned ones (certified on a later attempt);
* the minimum over tasks of the fewest hidden cases an ablated decision fails (bound >= 2);
* the mean share of held-out paraphrases reaching their record in the top 3 (``--router``, the default router by
  default; certification asks each of :data:`~icae_env.families.certify.CERTIFY_ROUTERS`; the bound >= 0.85 is
  the first's);
* the median and maximum Overall of the golden with every hidden decision at its naive default (median <= 0.35);
* tells found in an L1 text or a public case file, re-checked here apart from certification (bound 0);
* for families with a JavaScript golden, how many cases of every tier the JavaScript golden prints exactly as the
  Python golden's expected output (one ``node`` process per family);
* certified tasks per minute (in-process).

**Check** (``--check``): this was the family tests' certification check. It asserts aggregate rates over 45 generated
tasks per family (about 1-3 minutes per family on 2 cores with an empty logit cache), so it is a benchmark; the suite
checks every per-task property (certified, ablations, tells, hidden cases not shared) on a few tasks of every family
(``tests/families/test_family_contract.py``) and runs this code path on two tasks
(``tests/families/test_family_figures.py``). Per family it generates tasks ``0..29`` of the train split and
``0..14`` of the test split (``--train``, ``--test``; a held-out family has no train split: tasks ``0..N-1`` of its
test split, N from :data:`HELD_OUT_TASKS` or ``--test``) and checks on each batch:

* rejected tasks: fewer than :data:`MAX_REJECTED` of the batch;
* every certificate ok; every ablation fails >= :data:`~icae_env.families.certify.MIN_ABLATION_FAILS` hidden cases;
* the mean paraphrase top-3 share of the first of :data:`~icae_env.families.certify.CERTIFY_ROUTERS` >=
  :data:`MIN_PARAPHRASE_TOP3`, of each other one >= :data:`MIN_OTHER_ROUTER_TOP3`;
* the naive-default golden's Overall: median <= :data:`MAX_NAIVE_MEDIAN`, maximum <=
  :data:`~icae_env.families.certify.NAIVE_CEILING`;
* no tell in an L1 text or a public case file;

and that no hidden case of a test task is one of a train task (a held-out family: of another task of the batch). It
prints one row per figure (family, batch, figure, value, bound, ``ok``, or ``BELOW`` a floor / ``ABOVE`` a ceiling),
then each batch's counts and rejections, and exits 1 when a figure is out of its bound. The last figures are in
``docs/experiments.md``.

Run (from the repository root):
    python benchmarks/family_figures.py [--families all] [--count 200] [--split auto|train|test] [--router R]
    python benchmarks/family_figures.py --check [--families all] [--train 30] [--test 15]
"""

from __future__ import annotations

import argparse
import json
import operator
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from math import nan
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from icae_env.families import Generated, TaskRejected, family_names, generate, get_family  # noqa: E402
from icae_env.families.certify import (  # noqa: E402
    CERTIFY_ROUTERS,
    MIN_ABLATION_FAILS,
    NAIVE_CEILING,
    paraphrase_reach,
    reach_metric,
    reach_share,
)
from icae_env.families.javascript import javascript_outputs  # noqa: E402
from icae_env.registration import DEFAULT_ROUTER, ROUTERS  # noqa: E402

#: ``--check``: a batch's rejected tasks must be fewer than this share of it.
MAX_REJECTED = 0.10
#: ``--check``: the floor of the mean paraphrase top-3 share of the first certification router (lexical).
MIN_PARAPHRASE_TOP3 = 0.85
#: ``--check``: the floor of the other certification routers' mean (cascade): the trigger pools were written against
#: the lexical router. Set when the other router was distilled, whose family means over these batches measured
#: 0.849-0.953 (config-checker's test split and dependency-order's train split at 0.849-0.850); every task still
#: passes the per-decision check.
MIN_OTHER_ROUTER_TOP3 = 0.83
#: ``--check``: the ceiling of the median Overall of the golden with every hidden decision at its naive default.
MAX_NAIVE_MEDIAN = 0.35
#: ``--check``: train and test tasks generated per family with both splits.
TRAIN_TASKS, TEST_TASKS = 30, 15
#: ``--check``: test tasks generated per held-out family (:data:`HELD_OUT_DEFAULT` for one not named here).
HELD_OUT_TASKS = {"log-summary": 30, "rate-limiter": 40}
HELD_OUT_DEFAULT = 30

_RELATIONS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">=": operator.ge,
    "==": operator.eq,
}
#: The figures that are counts.
_COUNTS = {"certificates not ok", "min ablation fails", "tells revealed", "hidden cases shared"}


@dataclass
class Batch:
    """Tasks ``0..count-1`` of one split: the certified ones, why the others were rejected, and how long it took."""

    family: str
    split: str
    tasks: list[Generated] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def per_minute(self) -> float:
        """Certified tasks per minute."""
        return 60 * len(self.tasks) / self.seconds if self.seconds else 0.0

    def metric(self, name: str) -> list[float]:
        """One certificate metric over the certified tasks."""
        return [g.certificate.metrics[name] for g in self.tasks]


class Row(NamedTuple):
    """One checked figure: ``value relation bound`` (a figure of no task is NaN, which fails every bound)."""

    family: str
    batch: str
    figure: str
    value: float
    relation: str
    bound: float
    ok: bool

    @property
    def verdict(self) -> str:
        """``ok``, ``BELOW`` (a floor) or ``ABOVE`` (a ceiling)."""
        return "ok" if self.ok else "BELOW" if self.relation == ">=" else "ABOVE"

    def line(self) -> str:
        """The row as printed (a count as a whole number)."""
        value = f"{self.value:8.0f}" if self.figure in _COUNTS else f"{self.value:8.3f}"
        bound = f"{self.relation} {self.bound:g}"
        return f"{self.family:17} {self.batch:10} {self.figure:34} {value} {bound:>8}  {self.verdict}"


def _row(family: str, batch: str, figure: str, value: float, relation: str, bound: float) -> Row:
    value = float(value)
    return Row(family, batch, figure, value, relation, bound, _RELATIONS[relation](value, bound))


def generate_batch(family: str, split: str, count: int) -> Batch:
    """Generate tasks ``0..count-1`` of ``split`` in-process, keeping each rejection's reason."""
    batch, started = Batch(family, split), time.perf_counter()
    for index in range(count):
        try:
            batch.tasks.append(generate(family, split, index))
        except TaskRejected as exc:
            batch.rejected.append(str(exc))
    batch.seconds = time.perf_counter() - started
    return batch


def revealed_tells(generated: Generated) -> list[str]:
    """The tells of hidden decisions found in the task's L1 text or a public case file (``decision: tell``)."""
    family, plan = get_family(generated.plan.family), generated.plan
    public = [text.lower() for path, text in generated.files.items() if path.startswith("cases/public/")]
    texts = [generated.task.prd("L1").lower(), *public]
    needles = [
        (name, tell.format(**plan.skin.words).lower())
        for name in plan.hidden
        for tell in family.decision(name).value(plan.values[name]).tells
    ]
    return [f"{name}: {needle}" for name, needle in needles if any(needle in text for text in texts)]


def hidden_cases(generated: Generated) -> set[str]:
    """The task's hidden cases (native and enhanced), each as canonical JSON of (input, expected output)."""
    tests = generated.task.tests
    return {
        json.dumps([case.input, case.expected_text], sort_keys=True)
        for tier in ("native", "enhanced")
        for case_file in tests.tier(tier)
        for case in case_file.cases
    }


def shared_cases(left: list[Generated], right: list[Generated]) -> list[tuple[str, str]]:
    """``(task, case)`` for each hidden case of a task in ``right`` that a task in ``left`` has (not itself)."""
    seen: dict[str, str] = {}
    for generated in left:
        for case in hidden_cases(generated):
            seen.setdefault(case, generated.plan.name)
    shared = []
    for generated in right:
        name = generated.plan.name
        shared += [(name, case) for case in sorted(hidden_cases(generated)) if seen.get(case, name) != name]
    return shared


def _mean(values: list[float]) -> float:
    return statistics.mean(values) if values else nan


def batch_rows(batch: Batch) -> list[Row]:
    """The bounds ``--check`` applies to one batch (module docstring)."""
    total = len(batch.tasks) + len(batch.rejected)
    naive = batch.metric("naive_overall")
    figures: list[tuple[str, float, str, float]] = [
        ("certificates not ok", sum(not g.certificate.ok for g in batch.tasks), "==", 0),
        ("min ablation fails", min(batch.metric("min_ablation_fails"), default=nan), ">=", MIN_ABLATION_FAILS),
    ]
    for router in CERTIFY_ROUTERS:  # the default router's too, which the env asks (its own floor, see above)
        floor = MIN_PARAPHRASE_TOP3 if router == CERTIFY_ROUTERS[0] else MIN_OTHER_ROUTER_TOP3
        figures.append((f"paraphrase top-3 mean ({router})", _mean(batch.metric(reach_metric(router))), ">=", floor))
    figures += [
        ("naive Overall median", statistics.median(naive) if naive else nan, "<=", MAX_NAIVE_MEDIAN),
        ("naive Overall max", max(naive, default=nan), "<=", NAIVE_CEILING),
        ("tells revealed", sum(len(revealed_tells(g)) for g in batch.tasks), "==", 0),
    ]
    # fewer rejected tasks than MAX_REJECTED x the batch: at most 2 of 30, 1 of 15, 3 of 40
    share = len(batch.rejected) / total if total else nan
    rejected = Row(batch.family, batch.split, f"rejected share ({len(batch.rejected)}/{total})", share, "<",
                   MAX_REJECTED, total > 0 and len(batch.rejected) < MAX_REJECTED * total)  # fmt: skip
    return [rejected, *(_row(batch.family, batch.split, *figure) for figure in figures)]


def check_family(name: str, train: int = TRAIN_TASKS, test: int | None = None) -> tuple[list[Batch], list[Row]]:
    """Generate ``name``'s batches and apply every bound of ``--check`` (module docstring).

    Args:
        name: The family.
        train: Train tasks (ignored for a held-out family, which has no train split).
        test: Test tasks (None: :data:`TEST_TASKS`, or :data:`HELD_OUT_TASKS`'s count for a held-out family).

    Returns:
        The batches (the train batch first) and the checked figures.
    """
    if get_family(name).held_out:
        count = HELD_OUT_TASKS.get(name, HELD_OUT_DEFAULT) if test is None else test
        batches = [generate_batch(name, "test", count)]
        pair = "test/test"
    else:
        batches = [
            generate_batch(name, "train", train),
            generate_batch(name, "test", TEST_TASKS if test is None else test),
        ]
        pair = "train/test"
    rows = [row for batch in batches for row in batch_rows(batch)]
    shared = shared_cases(batches[0].tasks, batches[-1].tasks)
    rows.append(_row(name, pair, "hidden cases shared", len(shared), "==", 0))
    return batches, rows


def _cases(generated: Generated) -> tuple[list[Any], list[str]]:
    tests = generated.task.tests
    cases = [c for tier in ("public", "native", "enhanced") for f in tests.tier(tier) for c in f.cases]
    return [c.input for c in cases], [c.expected_text for c in cases]


def _agreement(tasks: list[Generated]) -> str:
    family = get_family(tasks[0].plan.family)
    if "javascript" not in family.languages:
        return "-"
    pairs = [_cases(g) for g in tasks]
    jobs = [(family.golden(g.plan, "javascript"), inputs) for g, (inputs, _) in zip(tasks, pairs, strict=True)]
    outputs = javascript_outputs(jobs)
    agree = sum(o == e for out, (_, want) in zip(outputs, pairs, strict=True) for o, e in zip(out, want, strict=True))
    return f"{agree}/{sum(len(want) for _, want in pairs)}"


def _reach(tasks: list[Generated], router: str) -> float:
    """The mean share of held-out paraphrases reaching their record in the top 3 with ``router``."""
    if router in CERTIFY_ROUTERS:
        return statistics.mean(g.certificate.metrics[reach_metric(router)] for g in tasks)
    family = get_family(tasks[0].plan.family)
    return statistics.mean(reach_share(paraphrase_reach(family, g.plan, g.task, router)) for g in tasks)


def _first_reason(rejection: str) -> str:
    return rejection.split("attempt 0: ", 1)[-1].split(";")[0][:90]


def _figures(name: str, split: str, count: int, router: str) -> tuple[list[str], Counter[str]]:
    batch = generate_batch(name, split, count)
    tasks, rejected = batch.tasks, Counter(_first_reason(r) for r in batch.rejected)
    fails = [g.certificate.metrics["min_ablation_fails"] for g in tasks]
    naive = [g.certificate.metrics["naive_overall"] for g in tasks]
    row = [
        name, split, f"{len(tasks)}/{sum(rejected.values())}", str(sum(g.attempt > 0 for g in tasks)),
        f"{min(fails):.0f}", f"{_reach(tasks, router):.3f}",
        f"{statistics.median(naive):.3f} ({max(naive):.3f})", str(sum(len(revealed_tells(g)) for g in tasks)),
        _agreement(tasks), f"{batch.per_minute:.0f}",
    ]  # fmt: skip
    return row, rejected


def figures(names: list[str], split: str, count: int, router: str, out: Callable[[str], None] = print) -> None:
    """Print the figures table over tasks ``0..count-1`` of each family, then every rejection reason."""
    head = ("family", "split", "certified/rejected", "re-planned", "min ablation fails",
            f"paraphrase top-3 ({router})", "naive median (max)", "tells", "Py/JS agree", "tasks/min")  # fmt: skip
    out(" | ".join(head))
    reasons = []
    for name in names:
        chosen = split if split != "auto" else ("test" if get_family(name).held_out else "train")
        row, rejected = _figures(name, chosen, count, router)
        out(" | ".join(row))
        reasons += [f"  {name}: {times} x {reason}" for reason, times in rejected.most_common()]
    out("\nbounds: min ablation fails >= 2, paraphrase top-3 >= 0.85, naive median <= 0.35 (max <= 0.5), tells 0")
    out("\n".join(["rejections:", *reasons]) if reasons else "rejections: none")


def check(names: list[str], train: int, test: int | None, out: Callable[[str], None] = print) -> int:
    """Print every ``--check`` row of each family, then each batch's counts and rejections; 1 if a row fails."""
    out(f"{'family':17} {'batch':10} {'figure':34} {'value':>8} {'bound':>8}  ok")
    rows: list[Row] = []
    notes: list[str] = []
    for name in names:
        batches, family_rows = check_family(name, train, test)
        for row in family_rows:
            out(row.line())
        rows += family_rows
        for batch in batches:
            notes.append(
                f"{name} {batch.split}: {len(batch.tasks)} certified ({sum(g.attempt > 0 for g in batch.tasks)} "
                f"re-planned), {len(batch.rejected)} rejected, {batch.per_minute:.1f} tasks/min"
            )
            notes += [f"  rejected: {_first_reason(reason)}" for reason in batch.rejected]
    out("")
    for note in notes:
        out(note)
    failed = [row for row in rows if not row.ok]
    out(f"{len(rows) - len(failed)}/{len(rows)} figures within their bounds")
    return 1 if failed else 0


def _print(line: str) -> None:
    print(line, flush=True)


def main(argv: list[str] | None = None, out: Callable[[str], None] = _print) -> int:
    """Print the figures table (or, with ``--check``, the bounds table); return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="all", help="comma-separated family names, or all")
    parser.add_argument("--count", type=int, default=200, help="task indices per family (figures)")
    parser.add_argument("--split", choices=("auto", "train", "test"), default="auto", help="figures: the split")
    parser.add_argument("--router", choices=sorted(ROUTERS), default=DEFAULT_ROUTER,
                        help="router whose paraphrase reach is printed (certification: CERTIFY_ROUTERS)")  # fmt: skip
    parser.add_argument("--check", action="store_true", help="apply the bounds; exit 1 when a figure is out")
    parser.add_argument("--train", type=int, default=TRAIN_TASKS, help="--check: train tasks per family")
    parser.add_argument("--test", type=int, default=None,
                        help=f"--check: test tasks per family ({TEST_TASKS}; held-out: {HELD_OUT_TASKS})")  # fmt: skip
    args = parser.parse_args(argv)
    names = family_names() if args.families == "all" else args.families.split(",")
    if set(names) - set(family_names()):
        parser.error(f"unknown families {sorted(set(names) - set(family_names()))}; expected {family_names()}")
    for option in ("count", "train", "test"):
        if getattr(args, option) is not None and getattr(args, option) < 1:
            parser.error(f"--{option} must be >= 1, got {getattr(args, option)}")
    if args.check:
        return check(names, args.train, args.test, out)
    figures(names, args.split, args.count, args.router, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
