"""Final grades: item percentages after the late penalty, category
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
