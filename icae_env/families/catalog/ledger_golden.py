"""The Python golden of ``ledger-report``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "ledger/__init__.py": '''"""Ledger reports: totals, top entries, checks, date ranges and averages."""

from .app import handle

__all__ = ["handle"]
''',
    "ledger/money.py": '''"""Amounts as integer cents: parsing, formatting and averaging."""

import re
from fractions import Fraction

from .rules import THOUSANDS, round_cents

AMOUNT = re.compile(r"^[0-9]+(\\.[0-9]{1,2})?$")


def parse_amount(value):
    """Cents of a non-negative amount given as "12.5", "12.50", "12" or an integer; None when malformed."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value * 100 if value >= 0 else None
    if not isinstance(value, str) or not AMOUNT.match(value):
        return None
    whole, _, part = value.partition(".")
    return int(whole) * 100 + int((part + "00")[:2])


def money(cents):
    """Cents as text: thousands grouped by the house separator, two decimals."""
    whole, part = divmod(cents, 100)
    digits = str(whole)
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    return THOUSANDS.join(groups) + "." + str(part).zfill(2)


def average(cents_list):
    """The average of some amounts, in whole cents (the house rounding)."""
    return round_cents(Fraction(sum(cents_list), len(cents_list)))
''',
    "ledger/entries.py": '''"""Entries and their validation: every problem is an error with a row and a field."""

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
''',
    "ledger/reports.py": '''"""The five reports."""

from dataclasses import dataclass

from .entries import parse_day
from .money import average, money
from .rules import TOP_DEFAULT, fmt_day, in_range, order, tie_key


@dataclass(frozen=True)
class Group:
    name: str
    total: int


def _groups(entries, value):
    seen = {}
    for entry in entries:
        seen.setdefault(entry.category, []).append(entry.cents)
    return [Group(name, value(cents)) for name, cents in seen.items()]


def totals(data, entries):
    lines = [f"{g.name}: {money(g.total)}" for g in order(_groups(entries, sum))]
    return lines + [f"TOTAL: {money(sum(e.cents for e in entries))}"]


def averages(data, entries):
    return [f"{g.name}: {money(g.total)}" for g in order(_groups(entries, average))]


def top(data, entries):
    n = data.get("n", TOP_DEFAULT)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return ["error: n must be a positive integer"]
    ranked = sorted(entries, key=lambda e: (-e.cents, tie_key(e)))[:n]
    return [f"{i}. {e.category} {money(e.cents)} ({fmt_day(e.day)})" for i, e in enumerate(ranked, start=1)]


def check(data, entries):
    return [f"ok: {len(entries)} entries"]


def date_range(data, entries):
    start, end = parse_day(data.get("from")), parse_day(data.get("to"))
    if start is None or end is None or end < start:
        return ["error: from and to must be dates (YYYY-MM-DD), from not after to"]
    chosen = [e for e in entries if in_range(e.day, start, end)]
    lines = [f"{fmt_day(e.day)} {e.category} {money(e.cents)}" for e in chosen]
    return lines + [f"TOTAL: {money(sum(e.cents for e in chosen))}"]


REPORTS = {"totals": totals, "average": averages, "top": top, "check": check, "range": date_range}
''',
    "ledger/app.py": '''"""One request in, one report out."""

from .entries import read_entries
from .reports import REPORTS


def handle(data):
    """The whole output of one request (a JSON object with op, title and entries)."""
    if not isinstance(data, dict) or data.get("op") not in REPORTS:
        op = data.get("op") if isinstance(data, dict) else None
        return f"error: unknown op {op!r}\\n"
    title = data.get("title")
    header = f"== {title} ==" if isinstance(title, str) and title.strip() else "== ledger =="
    entries, errors = read_entries(data.get("entries"))
    lines = errors if errors else REPORTS[data["op"]](data, entries)
    return "\\n".join([header, *lines]) + "\\n"
''',
}

BLOCKS = {
    "order": {
        "total_desc": "def order(groups):\n    return sorted(groups, key=lambda g: (-g.total, g.name))\n",
        "name_asc": "def order(groups):\n    return sorted(groups, key=lambda g: g.name)\n",
        "first_seen": "def order(groups):\n    return list(groups)\n",
    },
    "number": {"plain": 'THOUSANDS = ""\n', "comma": 'THOUSANDS = ","\n', "space": 'THOUSANDS = " "\n'},
    "top_default": {"three": "TOP_DEFAULT = 3\n", "five": "TOP_DEFAULT = 5\n", "ten": "TOP_DEFAULT = 10\n"},
    "ties": {
        "earliest": "def tie_key(entry):\n    return entry.row\n",
        "latest": "def tie_key(entry):\n    return -entry.row\n",
        "by_name": "def tie_key(entry):\n    return (entry.category, entry.row)\n",
    },
    "error_mode": {"first": "ALL_ERRORS = False\n", "all": "ALL_ERRORS = True\n"},
    "row_base": {"one": "ROW_BASE = 1\n", "zero": "ROW_BASE = 0\n"},
    "error_order": {
        "by_row": "def error_order(problems):\n    return sorted(problems, key=lambda p: (p.row, p.rank))\n",
        "by_field": "def error_order(problems):\n    return sorted(problems, key=lambda p: (p.rank, p.row))\n",
    },
    "range_end": {
        "inclusive": "def in_range(day, start, end):\n    return start <= day <= end\n",
        "exclusive": "def in_range(day, start, end):\n    return start <= day < end\n",
    },
    "date_format": {
        "iso": "def fmt_day(day):\n    return day.isoformat()\n",
        "day_first": "def fmt_day(day):\n    return day.strftime('%d/%m/%Y')\n",
        "long": "def fmt_day(day):\n    return f'{day:%b} {day.day}, {day.year}'\n",
    },
    "rounding": {
        "half_up": "def round_cents(value):\n    return int(value + Fraction(1, 2))\n",
        "half_even": "def round_cents(value):\n    return round(value)\n",
        "down": "def round_cents(value):\n    return int(value)\n",
    },
}

#: What a decision is when the task does not have it (its feature is absent): any value works; the first.
FALLBACK_BLOCKS = {name: next(iter(values.values())) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str]) -> str:
    """``ledger/rules.py``: the chosen block of every decision (absent decisions take a fixed one)."""
    parts = [
        '"""The house rules of this ledger (one block per product decision)."""\n',
        "from fractions import Fraction\n",
    ]
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS[name])
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``."""
    return {**CORE, "ledger/rules.py": rules_module(values)}
