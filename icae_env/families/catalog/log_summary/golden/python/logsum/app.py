"""One request in, one report out: the request checks in their fixed order, then the report."""

import re

from .lines import read_log
from .reports import REPORTS
from .rules import WINDOW_DEFAULT

WINDOW = re.compile(r"([1-9][0-9]*)([smh])")
UNITS = {"s": 1, "m": 60, "h": 3600}
MAX_N = 20


class RequestError(Exception):
    """A request problem: one error line."""


class Request:
    """A checked request: the events and skipped lines of its log, its window length and its n."""

    def __init__(self, events, skipped, window, n):
        self.events, self.skipped, self.window, self.n = events, skipped, window, n


def window_length(text):
    match = WINDOW.fullmatch(text) if isinstance(text, str) else None
    seconds = int(match.group(1)) * UNITS[match.group(2)] if match else 0
    if not 0 < seconds <= 86400:
        raise RequestError("bad window")
    return seconds


def _read(data, op):
    if not isinstance(data.get("log"), str):
        raise RequestError("log must be a string")
    window = window_length(data.get("window", WINDOW_DEFAULT)) if op in ("rollup", "latency") else None
    n = data.get("n") if op == "top" else None
    if "n" in data and op == "top" and (isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N):
        raise RequestError(f"n must be an integer from 1 to {MAX_N}")
    return Request(*read_log(data["log"]), window, n)


def handle(data):
    """The whole output of one request (a JSON object with op, title, log and the op's own keys)."""
    op = data.get("op") if isinstance(data, dict) else None
    if not isinstance(op, str) or op not in REPORTS:
        return f"error: unknown op {op!r}\n"
    title = data.get("title")
    header = f"== {title.strip()} ==" if isinstance(title, str) and title.strip() else "== log summary =="
    try:
        lines = REPORTS[op](_read(data, op))
    except RequestError as exc:
        lines = [f"error: {exc}"]
    return "\n".join([header, *lines]) + "\n"
