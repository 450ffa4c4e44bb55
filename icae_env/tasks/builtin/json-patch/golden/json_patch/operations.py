"""The six operations: structural checks (before anything runs) and their effect on a document."""

import copy
from dataclasses import dataclass

from . import pointer as ptr
from .equality import json_equal
from .errors import PointerError
from .render import canonical

OPS = ("add", "remove", "replace", "move", "copy", "test")
NEEDS_FROM = ("move", "copy")
NEEDS_VALUE = ("add", "replace", "test")


@dataclass(frozen=True)
class Operation:
    """A structurally valid operation."""

    index: int
    op: str
    path: ptr.Pointer
    source: ptr.Pointer | None = None
    value: object = None


@dataclass(frozen=True)
class Step:
    """What one operation did, for explain mode."""

    index: int
    op: str
    target: str
    effect: str


def check(index: int, raw) -> Operation:
    """Check one raw operation's shape; raise ``ValueError(reason)`` on the first problem.

    Order: object, op, known op, path, path syntax, from, from syntax, value, move into own child.
    """
    if not isinstance(raw, dict):
        raise ValueError("operation must be an object")
    name = raw.get("op")
    if not isinstance(name, str):
        raise ValueError("missing field 'op'")
    if name not in OPS:
        raise ValueError(f"unknown op '{name}'")
    path = _pointer_field(raw, "path")
    source = _pointer_field(raw, "from") if name in NEEDS_FROM else None
    if name in NEEDS_VALUE and "value" not in raw:
        raise ValueError("missing field 'value'")
    if name == "move" and source.is_proper_prefix_of(path):
        raise ValueError(f"cannot move {source.display()} into its own child {path.display()}")
    return Operation(index, name, path, source, raw.get("value"))


def _pointer_field(raw: dict, field: str) -> ptr.Pointer:
    text = raw.get(field)
    if not isinstance(text, str):
        raise ValueError(f"missing field '{field}'")
    parsed = ptr.parse(text)
    if parsed is None:
        raise ValueError(f"invalid pointer '{text}'")
    return parsed


# --- effects ---------------------------------------------------------------------------------------------
# Each returns (new document, target display, effect text) and raises PointerError on failure.


def _add(document, path: ptr.Pointer, value):
    """Insert or set ``value`` at ``path``; return (document, shown target, effect)."""
    if path.is_root:
        return value, path.display(), f"overwrote {canonical(document)} with {canonical(value)}"
    parent = ptr.parent_of(document, path)
    token = path.tokens[-1]
    if isinstance(parent, dict):
        if token in parent:
            effect = f"overwrote {canonical(parent[token])} with {canonical(value)}"
        else:
            effect = f"created {canonical(value)}"
        parent[token] = value
        return document, path.display(), effect
    if isinstance(parent, list):
        at = ptr.array_index(token, len(parent), path, for_insert=True)
        parent.insert(at, value)
        return document, path.with_last(at), f"inserted {canonical(value)}"
    raise PointerError(f"path not found: {path.display()}")


def _remove(document, path: ptr.Pointer):
    """Remove the value at ``path``; return (document, removed value)."""
    if path.is_root:
        raise PointerError("cannot remove the document root")
    parent = ptr.parent_of(document, path)
    token = path.tokens[-1]
    if isinstance(parent, dict):
        if token not in parent:
            raise PointerError(f"path not found: {path.display()}")
        return document, parent.pop(token)
    if isinstance(parent, list):
        return document, parent.pop(ptr.array_index(token, len(parent), path))
    raise PointerError(f"path not found: {path.display()}")


def _replace(document, path: ptr.Pointer, value):
    """Overwrite the existing value at ``path``; return (document, old value)."""
    old = ptr.get(document, path)
    if path.is_root:
        return value, old
    parent = ptr.parent_of(document, path)
    if isinstance(parent, dict):
        parent[path.tokens[-1]] = value
    else:
        parent[ptr.array_index(path.tokens[-1], len(parent), path)] = value
    return document, old


def perform(document, op: Operation):
    """Apply ``op`` to ``document`` (mutating it where possible); return (document, Step)."""
    path = op.path
    if op.op == "add":
        document, target, effect = _add(document, path, copy.deepcopy(op.value))
    elif op.op == "remove":
        document, old = _remove(document, path)
        target, effect = path.display(), f"removed {canonical(old)}"
    elif op.op == "replace":
        document, old = _replace(document, path, copy.deepcopy(op.value))
        target, effect = path.display(), f"overwrote {canonical(old)} with {canonical(op.value)}"
    elif op.op == "test":
        actual = ptr.get(document, path)
        if not json_equal(actual, op.value):
            raise PointerError(
                f"test failed: {path.display()} (expected {canonical(op.value)}, found {canonical(actual)})"
            )
        target, effect = path.display(), "passed"
    else:  # move / copy
        source = op.source
        value = ptr.get(document, source)
        if op.op == "move":
            shown = path.display()
            if source.tokens != path.tokens:
                document, value = _remove(document, source)
                document, shown, _ = _add(document, path, value)
            effect = f"moved {canonical(value)}"
        else:
            value = copy.deepcopy(value)
            document, shown, _ = _add(document, path, value)
            effect = f"copied {canonical(value)}"
        target = f"{source.display()} -> {shown}"
    return document, Step(op.index, op.op, target, effect)
