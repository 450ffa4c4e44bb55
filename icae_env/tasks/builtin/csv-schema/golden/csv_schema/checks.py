"""Per-type cell checks. Each check returns None when the value is fine, else a problem text.

New types plug in by adding an entry to CHECKS; the validator never changes.
"""
import datetime
import re
from decimal import Decimal

_INT_RE = re.compile(r"[+-]?[0-9]+")
_FLOAT_RE = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
_DATE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_BOOLS = {"true", "false", "yes", "no", "1", "0"}


def show(text):
    """Render a value inside a message: a newline becomes the two characters \\n."""
    return text.replace("\n", "\\n")


def _bounds(number, value, column):
    if column.min is not None and number < column.min:
        return f"value '{show(value)}' below min {column.min}"
    if column.max is not None and number > column.max:
        return f"value '{show(value)}' above max {column.max}"
    return None


def _mismatch(type_name, value):
    return f"expected {type_name}, got '{show(value)}'"


def check_string(value, column):
    return None


def check_int(value, column):
    if not _INT_RE.fullmatch(value):
        return _mismatch("int", value)
    return _bounds(Decimal(value), value, column)


def check_float(value, column):
    if not _FLOAT_RE.fullmatch(value):
        return _mismatch("float", value)
    return _bounds(Decimal(value), value, column)


def check_bool(value, column):
    return None if value.lower() in _BOOLS else _mismatch("bool", value)


def check_date(value, column):
    m = _DATE_RE.fullmatch(value)
    if m:
        try:
            datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            return None
        except ValueError:
            pass
    return _mismatch("date", value)


def check_enum(value, column):
    return None if value in column.values else f"value '{show(value)}' not in enum"


def check_regex(value, column):
    if column.pattern.fullmatch(value):
        return None
    return f"value '{show(value)}' does not match pattern"


CHECKS = {
    "string": check_string,
    "int": check_int,
    "float": check_float,
    "bool": check_bool,
    "date": check_date,
    "enum": check_enum,
    "regex": check_regex,
}
