"""Command-line arguments of the single-file baselines: a dataclass of fields, parsed by :func:`parse_args`.

Every field is a flag, spelled with hyphens (``--max-steps``; ``--max_steps`` is accepted too). Its help text is
the string literal right after the field (as in :class:`SuiteArgs`), or ``field(metadata={"help": ...})``;
``metadata={"choices": (...)}`` restricts its values.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Args(SuiteArgs):
    ...     max_steps: int = 10
    >>> args = parse_args(Args, "a baseline", ["--max-steps", "3", "--levels", "L1,L2"])
    >>> args.max_steps, args.level_list, args.tasks
    (3, ['L1', 'L2'], 'builtin')
    >>> parse_args(Args, "a baseline", ["--max_steps", "4"]).max_steps
    4
    >>> field_help(SuiteArgs)["seed"]
    'reset seed'
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

__all__ = ["SuiteArgs", "add_arguments", "field_help", "parse_args"]

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
    value = text.lower()
    if value not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return value in ("1", "true", "yes", "on")


def _docstrings(cls: type) -> dict[str, str]:
    """The string literal after each annotated field in the source of ``cls`` (none when it has no source)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs = {}
    for node, after in zip(body, body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def field_help(cls: type) -> dict[str, str]:
    """Return each field's help text: ``metadata["help"]``, else the string literal after the field.

    Fields are looked up through the base classes, so that a subclass inherits its bases' texts.
    """
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if dataclasses.is_dataclass(klass):
            docs.update(_docstrings(klass))
    for item in fields(cls):
        if "help" in item.metadata:
            docs[item.name] = str(item.metadata["help"])
    return docs


def add_arguments(parser: argparse.ArgumentParser | Any, cls: type, skip: Sequence[str] = ()) -> None:
    """Add one ``--<field-name>`` option per field of the dataclass ``cls`` (except ``skip``) to ``parser``.

    Options default to the field's default; booleans take true or false.
    """
    docs = field_help(cls)
    for item in fields(cls):
        if item.name in skip:
            continue
        kind: Any = type(item.default)
        names = [f"--{item.name.replace('_', '-')}"] + ([f"--{item.name}"] if "_" in item.name else [])
        text = docs.get(item.name, "").replace("%", "%%")
        shown = "empty" if item.default == "" else "%(default)s"
        options: dict[str, Any] = {
            "dest": item.name,
            "type": _boolean if kind is bool else kind,
            "default": item.default,
            "help": f"{text} (default: {shown})" if text else f"default: {shown}",
        }
        if kind is bool:
            options["metavar"] = "{true,false}"
        if "choices" in item.metadata:
            options["choices"] = tuple(item.metadata["choices"])
        parser.add_argument(*names, **options)


def parse_args(cls: type[_A], description: str, argv: Sequence[str] | None = None) -> _A:
    """Parse ``--<field> VALUE`` for every field of the dataclass ``cls`` (see the module docstring).

    Args:
        cls: The arguments dataclass.
        description: The program's docstring: its first line describes it in ``--help``, the rest is the epilog.
        argv: The arguments (default: ``sys.argv[1:]``).
    """
    first, _, rest = description.strip().partition("\n")
    parser = argparse.ArgumentParser(
        description=first, epilog=rest.strip() or None, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser, cls)
    return cls(**vars(parser.parse_args(argv)))
