"""Cell checks by column type: each returns None for a good value, else the problem."""

import datetime
import re
from decimal import Decimal

from .rules import BOOL_WORDS, DATE_PARTS, DATE_PATTERN, in_enum, is_blank, matches

INT = re.compile(r"[+-]?[0-9]+")
FLOAT = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def show(text):
    """A value as messages print it: a line break becomes the two characters \\n."""
    return text.replace("\n", "\\n")


def _mismatch(kind, value):
    return f"expected {kind}, got '{show(value)}'"


def _bounds(number, value, column):
    if column.min is not None and number < column.min:
        return f"value '{show(value)}' below min {column.min}"
    if column.max is not None and number > column.max:
        return f"value '{show(value)}' above max {column.max}"
    return None


def _number(pattern, kind):
    def check(value, column):
        return _bounds(Decimal(value), value, column) if pattern.fullmatch(value) else _mismatch(kind, value)

    return check


def _bool(value, column):
    return None if value.lower() in BOOL_WORDS else _mismatch("bool", value)


def _date(value, column):
    found = DATE_PATTERN.fullmatch(value)
    try:
        if found and datetime.date(*(int(found.group(part)) for part in DATE_PARTS)):
            return None
    except ValueError:
        pass
    return _mismatch("date", value)


def _enum(value, column):
    return None if in_enum(value, column.values) else f"value '{show(value)}' not in enum"


def _regex(value, column):
    return None if matches(column.pattern, value) else f"value '{show(value)}' does not match pattern"


CHECKS = {
    "string": lambda value, column: None,
    "int": _number(INT, "int"),
    "float": _number(FLOAT, "float"),
    "bool": _bool,
    "date": _date,
    "enum": _enum,
    "regex": _regex,
}


def check_cell(value, column):
    """The problem of one cell, or None; a blank cell is only checked for being required."""
    if is_blank(value):
        return "required value missing" if column.required else None
    return CHECKS[column.type](value, column)
