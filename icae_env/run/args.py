"""Command-line arguments of the single-file baselines: a dataclass of fields, parsed by :func:`parse_args`.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Args(SuiteArgs):
    ...     steps: int = 10
    >>> args = parse_args(Args, "a baseline", ["--steps", "3", "--levels", "L1,L2"])
    >>> args.steps, args.level_list, args.tasks
    (3, ['L1', 'L2'], 'builtin')
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

__all__ = ["SuiteArgs", "parse_args"]

_A = TypeVar("_A")


@dataclass
class SuiteArgs:
    """What every baseline takes: which tasks and levels, the reset seed, where results go."""

    tasks: str = "builtin"
    """comma-separated task names or pack paths; 'builtin' selects every built-in task"""
    levels: str = "L1"
    """comma-separated levels (L1, L2, L3, ground)"""
    seed: int = 0
    """reset seed"""
    out: str = ""
    """output directory for results.jsonl and summary.md (empty: none)"""

    @property
    def level_list(self) -> list[str]:
        """The levels as a list."""
        return [level.strip() for level in self.levels.split(",") if level.strip()]


def _boolean(text: str) -> bool:
    return text.lower() in ("1", "true", "yes", "on")


def parse_args(cls: type[_A], description: str, argv: Sequence[str] | None = None) -> _A:
    """Parse ``--<field> VALUE`` for every field of the dataclass ``cls`` (booleans take true/false)."""
    parser = argparse.ArgumentParser(description=description.strip().split("\n")[0])
    for field in fields(cls):  # type: ignore[arg-type]
        kind: Any = type(field.default)
        parser.add_argument(f"--{field.name}", type=_boolean if kind is bool else kind, default=field.default)
    return cls(**vars(parser.parse_args(argv)))
