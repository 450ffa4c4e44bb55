"""What the commands share: the sandbox options, the run configuration, argument types and plain tables."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from icae_env.config import RunConfig, load_config
from icae_env.sandbox.spec import SandboxSpec, parse_option

__all__ = [
    "add_kind_commands",
    "add_sandbox_arguments",
    "config_of",
    "count",
    "deprecated",
    "pct",
    "sandbox_of",
    "seconds",
    "table",
]


def pct(value: float | None) -> str:
    """A rate as a percentage with one decimal (``-`` for None)."""
    return "-" if value is None else f"{100 * value:.1f}"


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain-text table with a rule under the header."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def deprecated(func: Callable[[argparse.Namespace], int], notice: str) -> Callable[[argparse.Namespace], int]:
    """Wrap a command's ``func`` so that it first prints ``notice`` (an old spelling's one-line notice) to stderr."""

    def run(args: argparse.Namespace) -> int:
        print(f"icae-env: note: {notice}; the old spelling is removed in the next release", file=sys.stderr)
        return func(args)

    return run


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def count(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number >= ``minimum``."""

    def parse(text: str) -> int:
        if not text.isdigit() or int(text) < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text!r}")
        return int(text)

    return parse


def add_sandbox_arguments(parser: argparse.ArgumentParser, config: bool = True) -> None:
    """Add ``--sandbox NAME``, ``--sandbox-option key=value`` (repeatable) and, with ``config``, ``--config``."""
    parser.add_argument("--sandbox", default=None, help="sandbox backend: local (default) or docker")
    parser.add_argument(
        "--sandbox-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a backend option (repeatable), e.g. isolation=bwrap, memory=2g, warm_pool=1",
    )
    if config:
        parser.add_argument("--config", help="run configuration YAML, or the name of a shipped one (default)")


def add_kind_commands(commands: Any, name: str, helps: tuple[str, str, str], list_func: Any, validate_func: Any) -> Any:
    """Register ``<name> list`` and ``<name> validate [NAME ...] [--sandbox ...]``; return the subparsers for more.

    Args:
        commands: The top-level subparsers.
        name: The command group (``tasks``, ``revision``).
        helps: Help lines of the group, of ``list`` and of ``validate``.
        list_func: Runs ``list``.
        validate_func: Runs ``validate``.
    """
    group = commands.add_parser(name, help=helps[0])
    sub = group.add_subparsers(dest=f"{name}_command", required=True)
    sub.add_parser("list", help=helps[1]).set_defaults(func=list_func)
    validate = sub.add_parser("validate", help=helps[2])
    validate.add_argument("names", nargs="*", help="task names or pack paths (default: every built-in one)")
    add_sandbox_arguments(validate)
    validate.set_defaults(func=validate_func)
    return sub


def config_of(args: argparse.Namespace) -> RunConfig:
    """The run configuration ``--config`` names (the defaults without it)."""
    path = getattr(args, "config", None)
    return load_config(path) if path else RunConfig()


def sandbox_of(args: argparse.Namespace) -> SandboxSpec:
    """The sandbox spec of a command: the configuration's, another backend by ``--sandbox``, then each option.

    Naming another backend than the configuration's starts from that backend's defaults.

    Raises:
        ConfigError: one line naming the bad backend or option and the valid choices.
    """
    base = config_of(args).sandbox
    options: dict[str, Any] = dict(parse_option(text) for text in args.sandbox_option)
    if args.sandbox is not None and args.sandbox != base.backend:
        return SandboxSpec.of(args.sandbox, options)
    return SandboxSpec.of(base, options)
