"""One request in, one report out."""

from .entries import read_entries
from .reports import REPORTS


def handle(data):
    """The whole output of one request (a JSON object with op, title and entries)."""
    if not isinstance(data, dict) or data.get("op") not in REPORTS:
        op = data.get("op") if isinstance(data, dict) else None
        return f"error: unknown op {op!r}\n"
    title = data.get("title")
    header = f"== {title} ==" if isinstance(title, str) and title.strip() else "== ledger =="
    entries, errors = read_entries(data.get("entries"))
    lines = errors if errors else REPORTS[data["op"]](data, entries)
    return "\n".join([header, *lines]) + "\n"
