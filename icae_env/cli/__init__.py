"""The ``icae-env`` command line.

Commands:
    icae-env run --agent oracle|random [--tasks builtin|revision|NAME,...] [--levels L1] [--seeds 0] [--out DIR]
                 [--sandbox local|docker] [--sandbox-option KEY=VALUE ...] [--config FILE] [--trajectories]
                 [--workers N [--ray-address ADDR] [--episode-timeout S]]
    icae-env score WORKSPACE --task NAME [--tiers public,native,enhanced] [--json] [--sandbox ...]
    icae-env tasks list | validate [NAME ...] [--sandbox ...] | generate ... | families
    icae-env icae fetch --root DIR | inspect ROOT [ALIAS ...] | certify ROOT [ALIAS ...] | export NAME DIR
    icae-env revision list | validate [NAME ...] [--sandbox ...] | grade WORKSPACE --task NAME [--evidence DIR]
    icae-env replay TRAJECTORY.jsonl
    icae-env images build [LANG ...] [--force] [--archive PATH] [--image-map FILE]   language images, no registry
    icae-env images list [--image-map FILE] [--json]   languages, images, present or not, tool versions
    icae-env docker reap [--all]                 remove orphaned icae-env containers (by label)
    icae-env serve openenv [--env ID] [--port P] [--max-sessions N]   OpenEnv HTTP + WebSocket server
    icae-env serve oracle [--data-root DIR] [--ports 50001,50002,50003] [--state-dir DIR]
                          [--key KEY] [--allow-keyless]   ICAE-compatible Oracle HTTP API

Spellings before 0.2, kept for one release (they print a notice): ``oracle serve``, ``data fetch-icae``,
``tasks export-icae|inspect-icae|certify-icae``.

Every error a user can cause is one line on stderr (``icae-env: error: ...``) and exit status 2.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence

from icae_env.cli.export_sft import add_export_sft_command
from icae_env.cli.icae import add_icae_commands, add_old_spellings
from icae_env.cli.images import add_images_commands
from icae_env.cli.oracle import add_oracle_commands
from icae_env.cli.revision import add_revision_commands
from icae_env.cli.run import add_run_commands
from icae_env.cli.serve import add_serve_commands
from icae_env.cli.tasks import add_score_command, add_tasks_commands
from icae_env.errors import IcaeEnvError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="icae-env", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    tasks = add_tasks_commands(commands)
    add_score_command(commands)
    add_run_commands(commands)
    add_images_commands(commands)
    add_revision_commands(commands)
    add_serve_commands(commands)
    add_icae_commands(commands)
    add_old_spellings(tasks, commands)
    add_oracle_commands(commands)
    add_export_sft_command(commands)
    return parser


def _on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return int(args.func(args))
    except (IcaeEnvError, FileNotFoundError, ValueError) as exc:
        print(f"icae-env: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("icae-env: interrupted", file=sys.stderr)
        return 130
