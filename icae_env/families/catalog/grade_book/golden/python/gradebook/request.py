"""The request: its structure (an error line when broken) and the
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
