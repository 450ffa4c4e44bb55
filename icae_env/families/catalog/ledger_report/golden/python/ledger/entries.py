"""Entries and their validation: every problem is an error with a row and a field."""

import datetime
from dataclasses import dataclass

from .money import parse_amount
from .rules import ALL_ERRORS, ROW_BASE, error_order

FIELDS = ("category", "amount", "date")


@dataclass(frozen=True)
class Entry:
    row: int
    category: str
    cents: int
    day: datetime.date


@dataclass(frozen=True)
class Problem:
    row: int
    field: str
    text: str

    @property
    def rank(self):
        return FIELDS.index(self.field)

    def line(self):
        return f"error: row {self.row + ROW_BASE}: {self.field} {self.text}"


def parse_day(value):
    if not isinstance(value, str) or len(value) != 10:
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        return None


def _problems(row, raw):
    if not isinstance(raw, dict):
        return [Problem(row, "category", "missing (the entry is not an object)")]
    found = []
    category = raw.get("category")
    if not isinstance(category, str) or not category.strip():
        found.append(Problem(row, "category", "missing"))
    if parse_amount(raw.get("amount")) is None:
        found.append(Problem(row, "amount", "is not an amount"))
    if parse_day(raw.get("date")) is None:
        found.append(Problem(row, "date", "is not a date (YYYY-MM-DD)"))
    return found


def read_entries(raw_entries):
    """The entries, or the error lines to print instead (the house rules for which and in what order)."""
    if not isinstance(raw_entries, list):
        return None, ["error: entries must be a list"]
    problems = [p for row, raw in enumerate(raw_entries) for p in _problems(row, raw)]
    if problems:
        ordered = error_order(problems)
        return None, [p.line() for p in (ordered if ALL_ERRORS else ordered[:1])]
    entries = [
        Entry(row, raw["category"].strip(), parse_amount(raw["amount"]), parse_day(raw["date"]))
        for row, raw in enumerate(raw_entries)
    ]
    return entries, []
