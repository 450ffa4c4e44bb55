"""Typed views of raw values: inference, conversion and rendering."""

import re

from .errors import Failed
from .rules import FALSE_WORDS, TRUE_WORDS, int_allowed, list_items

INT = re.compile(r"[+-]?[0-9]+")


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def as_bool(value):
    low = value.lower()
    return "true" if low in TRUE_WORDS else "false" if low in FALSE_WORDS else None


def as_int(value):
    if not INT.fullmatch(value) or not int_allowed(value):
        return None
    digits = value.lstrip("+-").lstrip("0")
    return ("-" if value.startswith("-") and digits else "") + (digits or "0")


def as_list(items):
    return "[" + ", ".join(quote(item) for item in items if item) + "]"


def infer(value):
    """``(type, canonical text)``: bool, then int, then list, then str."""
    for kind, convert in (("bool", as_bool), ("int", as_int)):
        result = convert(value)
        if result is not None:
            return kind, result
    items = list_items(value)
    return ("list", as_list(items)) if items is not None else ("str", quote(value))


def convert(value, kind, path):
    """``value`` as ``kind`` (str, int, bool or list) for a lookup."""
    if kind == "str":
        return value
    if kind == "list":
        items = list_items(value)
        return as_list([value] if items is None else items)
    result = as_bool(value) if kind == "bool" else as_int(value)
    if result is None:
        raise Failed(f"cannot convert to {kind}: {path}")
    return result
