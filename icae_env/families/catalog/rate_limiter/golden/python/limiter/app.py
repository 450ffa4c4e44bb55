"""One trace in, one report out; the settings are checked first."""

from .config import read_limit
from .replay import replay
from .reports import REPORTS


def _lines(data):
    if not isinstance(data, dict):
        return ["error: invalid config: input"]
    op = data.get("op")
    if not isinstance(op, str) or op not in REPORTS:
        return [f"error: unknown op: {op}" if isinstance(op, str) else "error: unknown op"]
    limit = read_limit(data, op)
    if isinstance(limit, str):
        return [f"error: invalid config: {limit}"]
    run = replay(limit, data["events"])
    return [run.error] if run.error else REPORTS[op](data, limit, run)


def handle(data):
    """The whole output of one request (a JSON object: op, the limit's settings and the events)."""
    return "\n".join(_lines(data)) + "\n"
