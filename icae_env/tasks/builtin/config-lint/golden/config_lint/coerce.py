"""Typed views of raw string values."""
import re

from .errors import ConversionError

TYPES = ("str", "int", "bool", "list")

_TRUE = {"true", "yes", "on"}
_FALSE = {"false", "no", "off"}
_INT_RE = re.compile(r"[+-]?[0-9]+")


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def as_bool(value):
    low = value.lower()
    if low in _TRUE:
        return "true"
    if low in _FALSE:
        return "false"
    return None


def as_int(value):
    """Canonical decimal form of an integer literal, or None (no size limit)."""
    if not _INT_RE.fullmatch(value):
        return None
    sign = "-" if value[0] == "-" else ""
    digits = value.lstrip("+-").lstrip("0")
    if digits == "":
        return "0"
    return sign + digits


def as_list(value):
    items = [item.strip(" \t") for item in value.split(",")]
    return "[" + ", ".join(quote(item) for item in items if item != "") + "]"


def infer(value):
    """(type name, canonical rendering) of a raw value: bool, int, list, then str."""
    b = as_bool(value)
    if b is not None:
        return "bool", b
    i = as_int(value)
    if i is not None:
        return "int", i
    if "," in value:
        return "list", as_list(value)
    return "str", quote(value)


def convert(value, type_name, path):
    """Render `value` as `type_name` for a lookup; raise ConversionError on mismatch."""
    if type_name == "str":
        return value
    if type_name == "list":
        return as_list(value)
    result = as_bool(value) if type_name == "bool" else as_int(value)
    if result is None:
        raise ConversionError(type_name, path)
    return result
