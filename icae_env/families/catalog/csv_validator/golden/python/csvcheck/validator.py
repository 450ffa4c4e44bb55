"""The checks of a whole file: the header, then every data record."""

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
