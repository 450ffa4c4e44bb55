"""``icae-env export-sft``: baseline demonstrations as chat JSONL with tool calls, for TRL's ``SFTTrainer``.

Episodes of the oracle and the heuristic clarifier (:mod:`icae_env.trainers.demonstrations` says what a line holds
and what it never holds), on the train split of the families that are not held out unless ``--tasks`` says
otherwise; evaluation tasks (built-in, ICAE, held-out families, other splits) need ``--allow-eval-tasks``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from icae_env.baselines.heuristic_clarifier import HeuristicClarifier
from icae_env.baselines.oracle_agent import OracleAgent
from icae_env.cli.common import count
from icae_env.errors import ArgumentError
from icae_env.trainers.demonstrations import export_sft, training_tasks
from icae_env.trainers.trl import ADAPTERS

__all__ = ["AGENTS", "add_export_sft_command"]

#: The agents ``--agents`` names.
AGENTS: dict[str, Any] = {"oracle": OracleAgent, "heuristic-clarifier": HeuristicClarifier}


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _cmd_export_sft(args: argparse.Namespace) -> int:
    agents = _names(args.agents)
    unknown = [a for a in agents if a not in AGENTS]
    if unknown or not agents:
        raise ArgumentError(f"--agents takes {', '.join(AGENTS)}; got {args.agents!r}")
    families = _names(args.families) if args.families else None
    tasks = _names(args.tasks) if args.tasks else training_tasks(families, args.count)
    chosen = {name: AGENTS[name] for name in agents}
    written = export_sft(args.out, args.env, chosen, tasks, _names(args.levels), allow_eval=args.allow_eval_tasks)
    print(
        f"{written} demonstrations ({len(tasks)} tasks x {len(agents)} agents) written to {args.out}", file=sys.stderr
    )
    return 0


def add_export_sft_command(commands: Any) -> None:
    """Register ``export-sft``."""
    parser = commands.add_parser(
        "export-sft", help="write baseline demonstrations as chat JSONL for SFT", description=__doc__.split("\n")[0]
    )
    add = parser.add_argument
    add("--out", required=True, help="the JSONL file to write")
    add("--env", default="icae/Clarify-v0", choices=sorted(ADAPTERS), help="the env the episodes are played in")
    add("--agents", default=",".join(AGENTS), help=f"comma-separated agents: {', '.join(AGENTS)}")
    add("--families", help="comma-separated families whose train split is used (default: all not held out)")
    add("--count", type=count(0), default=10, help="train-split tasks per family")
    add("--tasks", help="comma-separated task names instead of the families' (evaluation tasks are refused)")
    add("--levels", default="L1", help="comma-separated levels")
    add("--allow-eval-tasks", action="store_true", help="allow built-in, ICAE, held-out and test-split tasks")
    parser.set_defaults(func=_cmd_export_sft)
