"""Validation of parsed records against a Schema."""
from dataclasses import dataclass, field

from .checks import CHECKS, show
from .errors import MissingHeader
from .reader import read_records


@dataclass(frozen=True)
class Violation:
    """One problem. `row` is None for header problems; `column` None for row-level ones."""
    row: object
    column: object
    problem: str

    def __str__(self):
        if self.row is None:
            return f"header: {self.problem}"
        if self.column is None:
            return f"row {self.row}: {self.problem}"
        return f"row {self.row}, column '{show(self.column)}': {self.problem}"


@dataclass
class Report:
    rows: int
    violations: list = field(default_factory=list)


def check_header(header, schema):
    problems = []
    seen = set()
    for name in header:
        if name in seen:
            problems.append(Violation(None, None, f"duplicate column '{show(name)}'"))
        elif name not in schema.by_name and not schema.allow_extra:
            problems.append(Violation(None, None, f"unexpected column '{show(name)}'"))
        seen.add(name)
    for column in schema.columns:
        if column.name not in seen:
            problems.append(Violation(None, None, f"missing column '{show(column.name)}'"))
    return problems


def check_row(row, fields, header, schema):
    if len(fields) != len(header):
        return [Violation(row, None, f"expected {len(header)} fields, got {len(fields)}")]
    problems = []
    for name, value in zip(header, fields):
        column = schema.by_name.get(name)
        if column is None:
            continue
        if value == "":
            if column.required:
                problems.append(Violation(row, name, "required value missing"))
            continue
        problem = CHECKS[column.type](value, column)
        if problem is not None:
            problems.append(Violation(row, name, problem))
    return problems


def validate(text, schema):
    """Validate CSV `text` against `schema`; return a Report with every violation in order.

    Raises CsvSyntaxError for broken quoting and MissingHeader for a text without records.
    Header problems stop the row checks.
    """
    records = read_records(text)
    if not records:
        raise MissingHeader("missing header")
    (_, header), data = records[0], records[1:]
    report = Report(rows=len(data))
    report.violations = check_header(header, schema)
    if report.violations:
        return report
    for row, fields in data:
        report.violations.extend(check_row(row, fields, header, schema))
    return report
