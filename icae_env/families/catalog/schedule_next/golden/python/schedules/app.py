"""One request in, one report out: the request checks in a fixed order, then the report."""

import datetime as dt
import re

from .fields import parse
from .reports import REPORTS
from .rules import COUNT_DEFAULT

STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}")
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
MAX_COUNT, MAX_DAYS = 100, 31
NEEDS = {"next": ("count",), "between": ("to",), "daily": ("days",), "explain": (), "clash": ("other", "count")}


class RequestError(Exception):
    """A request problem: one error line."""


class Request:
    """A checked request: its schedules, its moments and its numbers."""

    def __init__(self):
        self.schedules, self.start, self.end, self.count, self.days = [], None, None, 1, 1


def _moment(value, key, what):
    shape = DATE if what == "date" else STAMP
    if isinstance(value, str) and shape.fullmatch(value):
        try:
            moment = dt.datetime.fromisoformat(value)
        except ValueError:
            moment = None
        if moment is not None and 1970 <= moment.year <= 2999:
            return moment
    form = "YYYY-MM-DD" if what == "date" else "YYYY-MM-DDTHH:MM"
    raise RequestError(f"{key} must be a {what} ({form})")


def _integer(data, key, default, high):
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
        raise RequestError(f"{key} must be an integer from 1 to {high}")
    return value


def _expressions(data, op):
    keys = ["expr", "other"] if "other" in NEEDS[op] else ["expr"]
    for key in keys:
        if not isinstance(data.get(key), str):
            raise RequestError(f"{key} must be a string")
    return keys


def _read(data, op):
    keys = _expressions(data, op)
    request = Request()
    if op != "explain":
        request.start = _moment(data.get("from"), "from", "date" if op == "daily" else "timestamp")
    if "to" in NEEDS[op]:
        request.end = _moment(data.get("to"), "to", "timestamp")
        if request.end < request.start:
            raise RequestError("to is before from")
        if request.end - request.start > dt.timedelta(days=MAX_DAYS):
            raise RequestError(f"range longer than {MAX_DAYS} days")
    if "days" in NEEDS[op]:
        request.days = _integer(data, "days", None, MAX_DAYS)
    if "count" in NEEDS[op]:
        request.count = _integer(data, "count", COUNT_DEFAULT, MAX_COUNT)
    for key in keys:
        schedule, problems = parse(data[key])
        if problems:
            prefix = "" if key == "expr" else f"{key}: "
            return request, [f"error: {prefix}{problem}" for problem in problems]
        request.schedules.append(schedule)
    return request, []


def handle(data):
    """The whole output of one request (a JSON object with op, name, expr and the op's own keys)."""
    op = data.get("op") if isinstance(data, dict) else None
    if not isinstance(op, str) or op not in REPORTS:
        shown = op if isinstance(op, str) else ""
        return f"error: unknown op '{shown}'\n"
    name = data.get("name")
    header = f"== {name.strip()} ==" if isinstance(name, str) and name.strip() else "== schedule =="
    try:
        request, errors = _read(data, op)
    except RequestError as exc:
        errors = [f"error: {exc}"]
    lines = errors if errors else REPORTS[op](request)
    return "\n".join([header, *lines]) + "\n"
