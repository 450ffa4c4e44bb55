"""One request in, one report out."""

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
        return f"{exc}\n"
    if book.op == "check":
        lines = check_lines(book)
    else:
        bad = first_bad(book)
        if bad is not None:
            return f"error: bad data for {bad}\n"
        lines = REPORTS[book.op](book)
    return "\n".join([f"== {book.course} ==", *lines]) + "\n"
