"""The five reports."""

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
