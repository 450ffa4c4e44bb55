"""The report of each op (the lines after the course header)."""

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
