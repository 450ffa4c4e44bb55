"""The Python golden of ``grade-book``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "gradebook/__init__.py": '''"""A course gradebook: final grades, letters, rankings, per-assessment
statistics and a data check from one JSON request."""

from .app import handle

__all__ = ["handle"]
''',
    "gradebook/request.py": '''"""The request: its structure (an error line when broken) and the
per-student data problems the check reports."""

import json
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .rules import SCORE_ABOVE_MAX

OPS = ("final", "letters", "ranking", "stats", "check")


class BadRequest(Exception):
    """The request is malformed; the message is the whole error line."""


@dataclass(frozen=True)
class Assessment:
    id: str
    category: str
    max: Fraction


@dataclass(frozen=True)
class Book:
    op: str
    course: str
    weights: dict
    assessments: tuple
    students: tuple
    top: object


def number(value):
    """The exact value of a JSON number (never a boolean), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float):
        return Fraction(Decimal(repr(value))) if math.isfinite(value) else None
    return Fraction(value)


def is_text(value):
    return isinstance(value, str) and value.strip() != ""


def _weights(raw):
    if not isinstance(raw, dict) or not raw:
        raise BadRequest("error: invalid weights")
    weights = {}
    for name, value in raw.items():
        weight = number(value)
        if not is_text(name) or weight is None or weight <= 0:
            raise BadRequest("error: invalid weights")
        weights[name] = weight
    return weights


def _assessments(raw, weights):
    if not isinstance(raw, list) or not raw:
        raise BadRequest("error: invalid assessments")
    found, seen = [], set()
    for entry in raw:
        ok = isinstance(entry, dict) and is_text(entry.get("id")) and is_text(entry.get("category"))
        ok = ok and entry["category"] in weights
        top = number(entry.get("max")) if isinstance(entry, dict) else None
        if not ok or top is None or top <= 0 or entry["id"] in seen:
            raise BadRequest("error: invalid assessments")
        seen.add(entry["id"])
        found.append(Assessment(entry["id"], entry["category"], top))
    return tuple(found)


def _students(raw):
    if not isinstance(raw, list):
        raise BadRequest("error: invalid students")
    for entry in raw:
        late = entry.get("late") if isinstance(entry, dict) else None
        if not (isinstance(entry, dict) and is_text(entry.get("name")) and isinstance(entry.get("scores"), dict)):
            raise BadRequest("error: invalid students")
        if late is not None and not isinstance(late, dict):
            raise BadRequest("error: invalid students")
    return tuple(raw)


def read_book(data):
    """The checked request (raises BadRequest with the error line)."""
    if not isinstance(data, dict):
        raise BadRequest("error: invalid request")
    if data.get("op") not in OPS:
        raise BadRequest("error: unknown op")
    if not is_text(data.get("course")):
        raise BadRequest("error: invalid course")
    weights = _weights(data.get("weights"))
    assessments = _assessments(data.get("assessments"), weights)
    students = _students(data.get("students"))
    top = data.get("top")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise BadRequest("error: invalid top")
    return Book(data["op"], data["course"], weights, assessments, students, top)


def _shown(value):
    return json.dumps(value)


def problems(student, assessments, taken):
    """The data problems of one student, in a fixed order (unknown ids, scores, late days)."""
    found = []
    maxima = {a.id: a.max for a in assessments}
    if student["name"] in taken:
        found.append("duplicate name")
    for key, value in student["scores"].items():
        if key not in maxima:
            found.append(f"{key}: unknown assessment")
        elif value is not None and number(value) is None:
            found.append(f"{key}: score {_shown(value)} is not a number")
        elif value is not None and number(value) < 0:
            found.append(f"{key}: score {_shown(value)} below 0")
        elif value is not None and number(value) > maxima[key] and SCORE_ABOVE_MAX == "error":
            found.append(f"{key}: score {_shown(value)} above max {_plain(maxima[key])}")
    for key, days in (student.get("late") or {}).items():
        if key not in maxima or isinstance(days, bool) or not isinstance(days, int) or days < 0:
            found.append(f"{key}: late days {_shown(days)} invalid")
    return found


def _plain(value):
    return str(value.numerator) if value.denominator == 1 else str(float(value))
''',
    "gradebook/grades.py": '''"""Final grades: item percentages after the late penalty, category
averages under the missing-work and drop rules, weighted and rounded."""

from fractions import Fraction

from .request import number
from .rules import DROP_LOWEST, MISSING_AS_ZERO, SCORE_ABOVE_MAX, late_penalty, round_grade


def item_percent(score, top, days):
    """The percentage an item earns, after the late penalty (never below 0)."""
    if SCORE_ABOVE_MAX == "cap":
        score = min(score, top)
    return max(Fraction(0), 100 * score / top - late_penalty(days))


def category_marks(student, assessments, category):
    """The percentages that count in one category for one student."""
    marks = []
    late = student.get("late") or {}
    for item in assessments:
        if item.category != category:
            continue
        value = student["scores"].get(item.id)
        if value is None:
            if MISSING_AS_ZERO:
                marks.append(Fraction(0))
            continue
        marks.append(item_percent(number(value), item.max, late.get(item.id, 0)))
    if DROP_LOWEST and len(marks) >= 2:
        marks.remove(min(marks))
    return marks


def final_grade(student, book):
    """The rounded final grade (a Fraction), or None when no category has a counted item."""
    total, weight = Fraction(0), Fraction(0)
    for category, share in book.weights.items():
        marks = category_marks(student, book.assessments, category)
        if marks:
            total += share * sum(marks) / len(marks)
            weight += share
    return round_grade(total / weight) if weight else None


def show(value):
    """A non-negative number rounded half up to one decimal, without a trailing .0."""
    tenths = (20 * value.numerator + value.denominator) // (2 * value.denominator)
    return str(tenths // 10) if tenths % 10 == 0 else f"{tenths // 10}.{tenths % 10}"
''',
    "gradebook/reports.py": '''"""The report of each op (the lines after the course header)."""

from .grades import final_grade, show
from .request import number, problems
from .rules import MISSING_AS_ZERO, REPORT_ALL_ROWS, SCALE, line_order, median, rank_numbers, reaches


def graded(book):
    return [(s["name"], final_grade(s, book)) for s in book.students]


def final_lines(book):
    return [f"{name}: {'no grade' if g is None else show(g)}" for name, g in line_order(graded(book))]


def letter(grade):
    for cutoff, name in SCALE:
        if reaches(grade, cutoff):
            return name
    return "F"


def letter_lines(book):
    lines, counts = [], {}
    for name, grade in line_order(graded(book)):
        if grade is None:
            lines.append(f"{name}: no grade")
            continue
        mark = letter(grade)
        counts[mark] = counts.get(mark, 0) + 1
        lines.append(f"{name}: {show(grade)} {mark}")
    order = [name for _, name in SCALE] + ["F"]
    spread = " ".join(f"{m}={counts[m]}" for m in order if m in counts)
    return lines + [f"distribution: {spread or 'none'}"]


def ranking_lines(book):
    rows = sorted(((g, n) for n, g in graded(book) if g is not None), key=lambda r: (-r[0], r[1]))
    numbers = rank_numbers([g for g, _ in rows])
    lines = [f"{k}. {n} {show(g)}" for k, (g, n) in zip(numbers, rows) if book.top is None or k <= book.top]
    return lines or ["no graded students"]


def stats_lines(book):
    lines = []
    for item in book.assessments:
        values = []
        for student in book.students:
            value = student["scores"].get(item.id)
            if value is not None:
                values.append(number(value))
            elif MISSING_AS_ZERO:
                values.append(number(0))
        if not values:
            lines.append(f"{item.id} ({item.category}): no scores")
            continue
        values.sort()
        avg, middle = show(sum(values) / len(values)), show(median(values))
        spread = f"avg {avg} median {middle} min {show(values[0])} max {show(values[-1])}"
        lines.append(f"{item.id} ({item.category}): {spread} (of {show(item.max)}, n={len(values)})")
    return lines


def check_lines(book):
    lines, taken = [], set()
    for student in book.students:
        found = problems(student, book.assessments, taken)
        taken.add(student["name"])
        if found:
            lines.append(f"{student['name']}: " + "; ".join(found))
            if not REPORT_ALL_ROWS:
                break
    return lines or [f"ok: {len(book.students)} students, {len(book.assessments)} assessments"]

''',
    "gradebook/app.py": '''"""One request in, one report out."""

from .reports import check_lines, final_lines, letter_lines, ranking_lines, stats_lines
from .request import BadRequest, problems, read_book

REPORTS = {"final": final_lines, "letters": letter_lines, "ranking": ranking_lines, "stats": stats_lines}


def first_bad(book):
    """The name of the first student with data problems, or None."""
    taken = set()
    for student in book.students:
        if problems(student, book.assessments, taken):
            return student["name"]
        taken.add(student["name"])
    return None


def handle(data):
    """The whole output of one request: {op, course, weights, assessments, students, top?}."""
    try:
        book = read_book(data)
    except BadRequest as exc:
        return f"{exc}\\n"
    if book.op == "check":
        lines = check_lines(book)
    else:
        bad = first_bad(book)
        if bad is not None:
            return f"error: bad data for {bad}\\n"
        lines = REPORTS[book.op](book)
    return "\\n".join([f"== {book.course} ==", *lines]) + "\\n"
''',
}

_PLAIN = "SCALE = ((90, 'A'), (80, 'B'), (70, 'C'), (60, 'D'))\n"
_PLUS_MINUS = (
    "SCALE = ((93, 'A'), (90, 'A-'), (87, 'B+'), (83, 'B'), (80, 'B-'), (77, 'C+'), (73, 'C'),\n"
    "         (70, 'C-'), (67, 'D+'), (63, 'D'), (60, 'D-'))\n"
)
_RANKS = "def rank_numbers(grades):\n    numbers = []\n    for k, grade in enumerate(grades):\n"
BLOCKS = {
    "missing": {"zero": "MISSING_AS_ZERO = True\n", "excluded": "MISSING_AS_ZERO = False\n"},
    "drop_lowest": {"none": "DROP_LOWEST = False\n", "one": "DROP_LOWEST = True\n"},
    "rounding": {
        "whole": "def round_grade(x):\n    return Fraction((2 * x.numerator + x.denominator) // (2 * x.denominator))\n",
        "tenth": (
            "def round_grade(x):\n    return Fraction((20 * x.numerator + x.denominator) // (2 * x.denominator), 10)\n"
        ),
        "truncate": "def round_grade(x):\n    return Fraction(x.numerator // x.denominator)\n",
    },
    "late": {
        "none": "def late_penalty(days):\n    return 0\n",
        "per_day": "def late_penalty(days):\n    return 10 * days\n",
        "capped": "def late_penalty(days):\n    return min(10 * days, 30)\n",
    },
    "cutoff": {
        "inclusive": "def reaches(grade, cutoff):\n    return grade >= cutoff\n",
        "exclusive": "def reaches(grade, cutoff):\n    return grade > cutoff\n",
    },
    "scale": {"plain": _PLAIN, "plus_minus": _PLUS_MINUS},
    "ties": {
        "sequential": "def rank_numbers(grades):\n    return list(range(1, len(grades) + 1))\n",
        "shared": _RANKS
        + "        same = k and grade == grades[k - 1]\n"
        + "        numbers.append(numbers[-1] if same else k + 1)\n    return numbers\n",
        "dense": _RANKS
        + "        same = k and grade == grades[k - 1]\n"
        + "        numbers.append(numbers[-1] if same else (numbers[-1] + 1 if numbers else 1))\n    return numbers\n",
    },
    "median": {
        "mean": (
            "def median(values):\n    middle = len(values) // 2\n"
            "    if len(values) % 2:\n        return values[middle]\n"
            "    return (values[middle - 1] + values[middle]) / 2\n"
        ),
        "lower": "def median(values):\n    return values[(len(values) - 1) // 2]\n",
    },
    "errors": {"first": "REPORT_ALL_ROWS = False\n", "all": "REPORT_ALL_ROWS = True\n"},
    "order": {
        "request": "def line_order(rows):\n    return rows\n",
        "name": "def line_order(rows):\n    return sorted(rows, key=lambda row: row[0])\n",
        "grade": (
            "def line_order(rows):\n    return sorted(rows, key=lambda row: (row[1] is None, -(row[1] or 0), row[0]))\n"
        ),
    },
    "over_max": {
        "error": 'SCORE_ABOVE_MAX = "error"\n',
        "extra": 'SCORE_ABOVE_MAX = "extra"\n',
        "cap": 'SCORE_ABOVE_MAX = "cap"\n',
    },
}

#: What a decision is when the task does not have it (its features are absent): any value works; the first.
FALLBACK_BLOCKS = {name: next(iter(values.values())) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str]) -> str:
    """``gradebook/rules.py``: the chosen block of every decision (absent decisions take a fixed one)."""
    header = '"""The house rules of this gradebook (one block per product decision)."""\n'
    parts = [header + "\nfrom fractions import Fraction\n"]
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS[name])
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``."""
    return {**CORE, "gradebook/rules.py": rules_module(values)}
