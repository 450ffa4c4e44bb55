"""The six reports (lines after the header)."""

import math
from fractions import Fraction

from .clock import pieces, raw_span, worked
from .rules import OVERTIME_FACTOR, hours_text, order, overtime

LONG_SHIFT = 960


def per_employee(shifts):
    """name -> [minutes, shifts, {start date: minutes}], in order of first appearance."""
    table = {}
    for shift in shifts:
        row = table.setdefault(shift.employee, [0, 0, {}])
        minutes = worked(shift)
        row[0] += minutes
        row[1] += 1
        row[2][shift.date] = row[2].get(shift.date, 0) + minutes
    return table


def ranked(table):
    return order(list(table), {name: row[0] for name, row in table.items()})


def counted(count, noun):
    return f"{count} {noun}{'' if count == 1 else 's'}"


def hours(request):
    table = per_employee(request.shifts)
    lines = []
    for name in ranked(table):
        minutes, count = table[name][0], table[name][1]
        lines.append(f"{name}: {hours_text(minutes)} ({counted(count, 'shift')})")
    return [*lines, f"total: {hours_text(sum(row[0] for row in table.values()))}"]


def cents(amount):
    return math.floor(amount * 100 + Fraction(1, 2))


def money(value):
    return f"{value // 100}.{value % 100:02d}"


def earnings(row, rate):
    """(regular minutes, overtime minutes, regular cents, overtime cents) of one person's row."""
    minutes, _, days = row
    extra = overtime(list(days.values()))
    regular = cents(Fraction(minutes - extra, 60) * rate)
    return minutes - extra, extra, regular, cents(Fraction(extra, 60) * rate * OVERTIME_FACTOR)


def pay(request):
    table, lines, total = per_employee(request.shifts), [], 0
    for name in ranked(table):
        _, _, regular, premium = earnings(table[name], request.rates[name])
        total += regular + premium
        lines.append(f"{name}: {money(regular + premium)} (overtime {money(premium)})")
    return [*lines, f"total: {money(total)}"]


def slip(request):
    name = request.employee
    row = per_employee(s for s in request.shifts if s.employee == name)[name]
    plain, extra, regular, premium = earnings(row, request.rates[name])
    lines = [f"slip for {name}", f"regular: {money(regular)} for {hours_text(plain)}"]
    if extra:
        lines.append(f"overtime: {money(premium)} for {hours_text(extra)}")
    return [*lines, f"gross: {money(regular + premium)}"]


def daily(request):
    days = {}
    for shift in request.shifts:
        for day, minutes in pieces(shift):
            days[day] = days.get(day, 0) + minutes
    lines = [f"{day.isoformat()}: {hours_text(days[day])}" for day in sorted(days)]
    return [*lines, f"total: {hours_text(sum(days.values()))}"]


def top(request):
    table = per_employee(request.shifts)
    if not table:
        return ["top: none"]
    best = max(row[0] for row in table.values())
    names = sorted(name for name, row in table.items() if row[0] == best)
    return [f"top: {', '.join(names)} with {hours_text(best)}"]


def interval(shift):
    start = shift.date.toordinal() * 1440 + shift.clock_in
    return start, start + (raw_span(shift) or 0)


def shift_problems(shift, earlier, rates):
    problems = [] if shift.employee in rates else [f"no rate for {shift.employee}"]
    span = raw_span(shift)
    if span is None:
        return [*problems, "clock-out equals clock-in"]
    start, end = interval(shift)
    for other in earlier:
        other_start, other_end = interval(other)
        if other.employee == shift.employee and span and other_end > other_start:
            if other_start < end and start < other_end:
                problems.append(f"overlaps shift {other.number}")
                break
    if span > LONG_SHIFT:
        problems.append("longer than 16 hours")
    if span - (shift.recorded_break or 0) <= 0:
        problems.append("no time worked")
    return problems


def check(request):
    lines = []
    for index, shift in enumerate(request.shifts):
        problems = shift_problems(shift, request.shifts[:index], request.rates)
        lines += [f"shift {shift.number}: {problem}" for problem in problems]
    shifts = counted(len(request.shifts), "shift")
    if not lines:
        return [f"result: ok, {shifts}"]
    return [*lines, f"result: {counted(len(lines), 'problem')} in {shifts}"]


REPORTS = {"hours": hours, "pay": pay, "daily": daily, "top": top, "check": check, "slip": slip}
