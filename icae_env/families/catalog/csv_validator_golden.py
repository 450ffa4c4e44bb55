"""The Python golden of ``csv-validator``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "csvcheck/__init__.py": '''"""Check CSV text against a column schema and print a report of every problem."""

from .app import handle

__all__ = ["handle"]
''',
    "csvcheck/errors.py": '''"""The one fatal error: a request or file problem that stops the check."""


class Fatal(Exception):
    """Stops the check; its text is the report's only line after the title (without "error: ")."""
''',
    "csvcheck/schema.py": '''"""The column schema of a request, checked strictly."""

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
''',
    "csvcheck/reader.py": '''"""Records of CSV text (RFC 4180 quoting), with their index and the line each starts on."""

from dataclasses import dataclass, field


@dataclass
class Record:
    index: int
    line: int
    fields: list = field(default_factory=list)
    broken: str = ""


class _Broken(Exception):
    def __init__(self, problem, at):
        super().__init__(problem)
        self.problem, self.at = problem, at


def _quoted(text, i):
    i, buf = i + 1, []
    while True:
        if i >= len(text):
            raise _Broken("unterminated quote", len(text))
        if text.startswith('""', i):
            buf.append('"')
            i += 2
        elif text[i] == '"':
            i += 1
            break
        else:
            buf.append(text[i])
            i += 1
    if i < len(text) and text[i] not in ",\\n":
        raise _Broken("malformed quoting", i)
    return "".join(buf), i


def _plain(text, i):
    start = i
    while i < len(text) and text[i] not in ",\\n":
        if text[i] == '"':
            raise _Broken("malformed quoting", i)
        i += 1
    return text[start:i], i


def _fields(text, i):
    fields = []
    while True:
        value, i = (_quoted if text.startswith('"', i) else _plain)(text, i)
        fields.append(value)
        if not text.startswith(",", i):
            return fields, i + 1
        i += 1


def read_records(text):
    """Every record; a record with broken quoting is kept with its problem and runs to the end of that line."""
    text = text.replace("\\r\\n", "\\n")
    records, i, line = [], 0, 1
    while i < len(text):
        if text[i] == "\\n":
            i, line = i + 1, line + 1
            continue
        start, record = i, Record(len(records), line)
        try:
            record.fields, i = _fields(text, i)
        except _Broken as exc:
            record.broken = exc.problem
            end = text.find("\\n", exc.at)
            i = len(text) if end < 0 else end + 1
        records.append(record)
        line += text.count("\\n", start, i)
    return records
''',
    "csvcheck/cells.py": '''"""Cell checks by column type: each returns None for a good value, else the problem."""

import datetime
import re
from decimal import Decimal

from .rules import BOOL_WORDS, DATE_PARTS, DATE_PATTERN, in_enum, is_blank, matches

INT = re.compile(r"[+-]?[0-9]+")
FLOAT = re.compile(r"[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?")


def show(text):
    """A value as messages print it: a line break becomes the two characters \\\\n."""
    return text.replace("\\n", "\\\\n")


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


CHECKS = {"string": lambda value, column: None, "int": _number(INT, "int"), "float": _number(FLOAT, "float"),
          "bool": _bool, "date": _date, "enum": _enum, "regex": _regex}


def check_cell(value, column):
    """The problem of one cell, or None; a blank cell is only checked for being required."""
    if is_blank(value):
        return "required value missing" if column.required else None
    return CHECKS[column.type](value, column)
''',
    "csvcheck/validator.py": '''"""The checks of a whole file: the header, then every data record."""

from dataclasses import dataclass

from .cells import check_cell, show
from .rules import EXTRA_ALLOWED, HEADER_STOPS_ROWS, row_number


@dataclass(frozen=True)
class Violation:
    where: str
    problem: str

    def __str__(self):
        return f"{self.where}: {self.problem}"


def check_header(names, columns):
    known, seen, found = {c.name for c in columns}, set(), []
    for name in names:
        if name in seen:
            found.append(f"duplicate column '{show(name)}'")
        elif name not in known and not EXTRA_ALLOWED:
            found.append(f"unexpected column '{show(name)}'")
        seen.add(name)
    found += [f"missing column '{show(c.name)}'" for c in columns if c.name not in seen]
    return [Violation("header", problem) for problem in found]


def check_record(record, names, by_name):
    where = f"row {row_number(record)}"
    if record.broken:
        return [Violation(where, record.broken)]
    if len(record.fields) != len(names):
        return [Violation(where, f"expected {len(names)} fields, got {len(record.fields)}")]
    found = []
    for name, value in zip(names, record.fields):
        problem = check_cell(value, by_name[name]) if name in by_name else None
        if problem:
            found.append(Violation(f"{where}, column '{show(name)}'", problem))
    return found


def check_file(header, records, columns):
    """Every violation, in file order: the header's first, then each record's, cell by cell."""
    found = check_header(header.fields, columns)
    if found and HEADER_STOPS_ROWS:
        return found
    by_name = {c.name: c for c in columns}
    for record in records:
        found.extend(check_record(record, header.fields, by_name))
    return found
''',
    "csvcheck/report.py": '''"""The report's lines after the title: the listed problems, then the summary."""

from .rules import CAP_DEFAULT, OVERFLOW_NOTE, summary


def render(violations, rows, max_errors):
    limit = CAP_DEFAULT if max_errors is None else max_errors
    shown = violations if limit is None else violations[:limit]
    lines = [str(v) for v in shown]
    if len(shown) < len(violations) and OVERFLOW_NOTE:
        lines.append(f"... {len(violations) - len(shown)} more not shown")
    return lines + [summary(rows, len(violations))]
''',
    "csvcheck/app.py": '''"""One request in, one report out."""

from .errors import Fatal
from .reader import read_records
from .report import render
from .rules import QUOTES_FATAL, row_number
from .schema import parse_schema
from .validator import check_file


def _max_errors(data):
    if "max_errors" not in data:
        return None
    value = data["max_errors"]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Fatal("invalid max_errors")
    return value


def check(data):
    """The report's lines after the title, or Fatal."""
    text = data.get("csv")
    if not isinstance(text, str):
        raise Fatal("missing csv")
    columns = parse_schema(data.get("schema"))
    limit = _max_errors(data)
    records = read_records(text)
    if not records:
        raise Fatal("missing header")
    header, rows = records[0], records[1:]
    if header.broken:
        raise Fatal(f"{header.broken} in the header")
    broken = next((r for r in rows if r.broken), None)
    if broken and QUOTES_FATAL:
        raise Fatal(f"{broken.broken} in row {row_number(broken)}")
    return render(check_file(header, rows, columns), len(rows), limit)


def handle(data):
    """The whole output of one request (a JSON object with file, csv, schema and optional max_errors)."""
    if not isinstance(data, dict):
        return "error: input must be an object\\n"
    name = data.get("file")
    title = name.strip() if isinstance(name, str) and name.strip() else "data.csv"
    try:
        lines = check(data)
    except Fatal as exc:
        lines = [f"error: {exc}"]
    return "\\n".join([f"== {title} ==", *lines]) + "\\n"
''',
}

_PLURAL = """def summary(rows, errors):
    def count(number, word):
        return f"{number} {word}" + ("" if number == 1 else "s")

    return f"summary: {count(rows, 'row')}, {count(errors, 'error')}"
"""

BLOCKS = {
    "row_numbers": {
        "sheet": "def row_number(record):\n    return record.index + 1\n",
        "data": "def row_number(record):\n    return record.index\n",
        "line": "def row_number(record):\n    return record.line\n",
    },
    "summary": {
        "fixed": 'def summary(rows, errors):\n    return f"summary: {rows} rows, {errors} errors"\n',
        "plural": _PLURAL,
    },
    "extra_columns": {"error": "EXTRA_ALLOWED = False\n", "allowed": "EXTRA_ALLOWED = True\n"},
    "header_stop": {"stop": "HEADER_STOPS_ROWS = True\n", "continue": "HEADER_STOPS_ROWS = False\n"},
    "booleans": {
        "true_false": 'BOOL_WORDS = frozenset({"true", "false"})\n',
        "yes_no": 'BOOL_WORDS = frozenset({"true", "false", "yes", "no", "1", "0"})\n',
        "one_zero": 'BOOL_WORDS = frozenset({"true", "false", "1", "0"})\n',
    },
    "dates": {
        "iso": 'DATE_PATTERN = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")\nDATE_PARTS = (1, 2, 3)\n',
        "day_first": 'DATE_PATTERN = re.compile(r"([0-9]{2})/([0-9]{2})/([0-9]{4})")\nDATE_PARTS = (3, 2, 1)\n',
        "month_first": 'DATE_PATTERN = re.compile(r"([0-9]{2})/([0-9]{2})/([0-9]{4})")\nDATE_PARTS = (3, 1, 2)\n',
    },
    "blank": {
        "empty_only": 'def is_blank(value):\n    return value == ""\n',
        "trimmed": 'def is_blank(value):\n    return value.strip(" \\t") == ""\n',
    },
    "pattern": {
        "full": "def matches(pattern, value):\n    return pattern.fullmatch(value) is not None\n",
        "contains": "def matches(pattern, value):\n    return pattern.search(value) is not None\n",
    },
    "enum_case": {
        "exact": "def in_enum(value, values):\n    return value in values\n",
        "any_case": "def in_enum(value, values):\n    return value.casefold() in {v.casefold() for v in values}\n",
    },
    "quotes": {"fatal": "QUOTES_FATAL = True\n", "row": "QUOTES_FATAL = False\n"},
    "cap_default": {"none": "CAP_DEFAULT = None\n", "ten": "CAP_DEFAULT = 10\n", "twenty": "CAP_DEFAULT = 20\n"},
    "overflow": {"note": "OVERFLOW_NOTE = True\n", "silent": "OVERFLOW_NOTE = False\n"},
}

#: The block of a decision the task does not have: its features are absent, so no input exercises it (the first value
#: of each decision; for the default cap that is "none", as no request of the other features limits the list).
FALLBACK = {name: next(iter(values)) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str]) -> str:
    """``csvcheck/rules.py``: the chosen block of every decision (absent decisions take their fallback)."""
    parts = ['"""The house rules of this validator (one block per product decision)."""\n', "import re\n"]
    parts += [blocks[values.get(name, FALLBACK[name])] for name, blocks in BLOCKS.items()]
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``."""
    return {**CORE, "csvcheck/rules.py": rules_module(values)}
