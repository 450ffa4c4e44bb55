"""Schema model and its validation."""
import re
from dataclasses import dataclass, field

from .checks import CHECKS
from .errors import SchemaError


@dataclass(frozen=True)
class Column:
    name: str
    type: str = "string"
    required: bool = False
    values: tuple = ()
    pattern: object = None
    min: object = None
    max: object = None


@dataclass
class Schema:
    columns: list
    allow_extra: bool = False
    by_name: dict = field(default_factory=dict)

    def __post_init__(self):
        self.by_name = {c.name: c for c in self.columns}


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _column(spec):
    if not isinstance(spec, dict):
        raise SchemaError("column must be an object")
    name = spec.get("name")
    if not isinstance(name, str) or name == "":
        raise SchemaError("column name")
    ctype = spec.get("type", "string")
    if not isinstance(ctype, str) or ctype not in CHECKS:
        raise SchemaError("unknown type")
    required = spec.get("required", False)
    if not isinstance(required, bool):
        raise SchemaError("required must be a boolean")
    for bound in ("min", "max"):
        if bound in spec and not _is_int(spec[bound]):
            raise SchemaError("bounds must be integers")
    values = ()
    if ctype == "enum":
        values = spec.get("values")
        if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
            raise SchemaError("enum values")
        values = tuple(values)
    pattern = None
    if ctype == "regex":
        raw = spec.get("pattern")
        if not isinstance(raw, str):
            raise SchemaError("regex pattern")
        try:
            pattern = re.compile(raw)
        except re.error as exc:
            raise SchemaError("regex pattern") from exc
    return Column(name, ctype, required, values, pattern, spec.get("min"), spec.get("max"))


def parse_schema(spec):
    """Build a Schema from its JSON-like description; raise SchemaError when malformed."""
    if not isinstance(spec, dict):
        raise SchemaError("schema must be an object")
    columns = spec.get("columns")
    if not isinstance(columns, list) or not columns:
        raise SchemaError("columns")
    allow_extra = spec.get("allow_extra", False)
    if not isinstance(allow_extra, bool):
        raise SchemaError("allow_extra")
    built = [_column(c) for c in columns]
    if len({c.name for c in built}) != len(built):
        raise SchemaError("duplicate column name")
    return Schema(built, allow_extra)
