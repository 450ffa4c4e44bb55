"""The column schema of a request, checked strictly."""

import re
from dataclasses import dataclass

from .errors import Fatal

TYPES = ("string", "int", "float", "bool", "date", "enum", "regex")


@dataclass(frozen=True)
class Column:
    name: str
    type: str = "string"
    required: bool = False
    values: tuple = ()
    pattern: object = None
    min: object = None
    max: object = None


def _integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _pattern(raw):
    try:
        return re.compile(raw)
    except (TypeError, re.error):
        raise Fatal("invalid schema") from None


def _column(spec):
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"]:
        raise Fatal("invalid schema")
    kind, required = spec.get("type", "string"), spec.get("required", False)
    if not isinstance(kind, str) or kind not in TYPES or not isinstance(required, bool):
        raise Fatal("invalid schema")
    if any(bound in spec and not _integer(spec[bound]) for bound in ("min", "max")):
        raise Fatal("invalid schema")
    values = spec.get("values") if kind == "enum" else ()
    if kind == "enum" and (not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values)):
        raise Fatal("invalid schema")
    pattern = _pattern(spec.get("pattern")) if kind == "regex" else None
    return Column(spec["name"], kind, required, tuple(values), pattern, spec.get("min"), spec.get("max"))


def parse_schema(spec):
    """The schema's columns, in schema order; Fatal("invalid schema") when anything is wrong."""
    columns = spec.get("columns") if isinstance(spec, dict) else None
    if not isinstance(columns, list) or not columns:
        raise Fatal("invalid schema")
    built = [_column(c) for c in columns]
    if len({c.name for c in built}) != len(built):
        raise Fatal("invalid schema")
    return built
