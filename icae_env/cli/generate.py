"""``icae-env tasks families`` and ``icae-env tasks generate``: the procedural task families."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from icae_env.cli.common import count, table
from icae_env.families import Knobs, TaskRejected, family_names, generate, get_family
from icae_env.families.generation import family_version, parse_knobs
from icae_env.icae_bench.export import export_icae
from icae_env.progress import draw_progress
from icae_env.tasks.golden import write_golden
from icae_env.tasks.models import GoldenFile

__all__ = ["add_generation_commands", "write_pack_files"]


def _cmd_families(args: argparse.Namespace) -> int:
    rows = []
    for name in family_names():
        family = get_family(name)
        core = sum(f.core for f in family.features)
        values = "/".join(str(len(d.values)) for d in family.decisions)
        splits = "held-out" if family.held_out else "train+test"
        features = f"{core}+{len(family.features) - core}"
        counts = f"{len(family.decisions)} ({values})"
        rows.append(
            (name, family_version(family), ",".join(family.languages), splits, features, counts, len(family.templates))
        )
    head = ("family", "version", "languages", "splits", "features core+opt", "decisions (values)", "templates")
    print(table(head, rows))
    print(f"\n{len(rows)} families. Knobs: {', '.join(Knobs.model_fields)} (see icae_env.families.plan.Knobs)")
    if args.verbose:
        for name in family_names():
            for decision in get_family(name).decisions:
                keys = ", ".join(v.key + ("*" if v.key == decision.naive else "") for v in decision.values)
                print(f"{name}: {decision.name} [{keys}] in {', '.join(decision.features)}")
    return 0


def write_pack_files(files: dict[str, str], dest: Path) -> Path:
    """Write a generated pack's files under ``dest`` (``rcb_tests/test.sh`` made executable)."""
    entries = tuple(GoldenFile(path=p, content=t, executable=p.endswith(".sh")) for p, t in files.items())
    return write_golden(entries, dest)


def _knob(text: str) -> str:
    """An argparse type: one ``KEY=VALUE`` knob."""
    key, equals, _ = text.partition("=")
    if not equals or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return text


def _cmd_generate(args: argparse.Namespace) -> int:
    knobs = parse_knobs("&".join(args.knob))
    out, started, rejected = Path(args.out), time.monotonic(), Counter[str]()
    done, index = 0, args.start
    while done < args.count:
        try:
            generated = generate(args.family, args.split, index, knobs)
        except TaskRejected as exc:
            rejected[str(exc).rsplit(": ", 1)[-1].split(" (")[0][:80]] += 1
            index += 1
            continue
        if args.icae:
            export_icae(generated.task, out, alias=generated.plan.task_id)
        else:
            write_pack_files(generated.files, out / generated.plan.task_id)
        done, index = done + 1, index + 1
        if not args.quiet:
            draw_progress(done, args.count, started, f"certified, {sum(rejected.values())} rejected")
    if not args.quiet:
        sys.stderr.write("\n")
    total = done + sum(rejected.values())
    print(f"{done} certified tasks of {args.family} ({args.split}) in {out}; {sum(rejected.values())}/{total} rejected")
    for reason, times in rejected.most_common():
        print(f"  rejected {times}: {reason}")
    return 0


def add_generation_commands(sub: Any) -> None:
    """Register ``families`` and ``generate`` under ``icae-env tasks``."""
    families = sub.add_parser("families", help="the procedural task families, their decisions and knobs")
    families.add_argument("-v", "--verbose", action="store_true", help="list every decision and its values (* naive)")
    families.set_defaults(func=_cmd_families)
    gen = sub.add_parser("generate", help="write certified generated task packs")
    gen.add_argument("family")
    gen.add_argument("--split", choices=("train", "test"), default="train")
    gen.add_argument("--count", type=count(1), default=10, help="certified tasks to write")
    gen.add_argument("--start", type=count(0), default=0, help="first task index")
    gen.add_argument(
        "--knob", type=_knob, action="append", default=[], metavar="KEY=VALUE", help="a difficulty knob (repeatable)"
    )
    gen.add_argument("--out", required=True, help="directory to write the packs into")
    gen.add_argument("--icae", action="store_true", help="write the ICAE-Bench data layout instead of task packs")
    gen.add_argument("--quiet", action="store_true", help="no progress line")
    gen.set_defaults(func=_cmd_generate)
