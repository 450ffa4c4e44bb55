"""One request in, one answer out: the request is checked first, then the action runs."""

import re

from .actions import ACTIONS
from .errors import Failed

PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
CHECKS = (
    (lambda r: r.get("action") in ACTIONS, "unknown action"),
    (lambda r: isinstance(r.get("text"), str), "missing text"),
    (lambda r: r["action"] != "get" or isinstance(r.get("key"), str), "missing key"),
    (lambda r: r["action"] != "get" or r.get("as", "str") in ("str", "int", "bool", "list"), "bad type"),
    (lambda r: r["action"] != "get" or isinstance(r.get("default", ""), str), "bad default"),
    (
        lambda r: (
            r["action"] != "env" or isinstance(r.get("prefix", "x"), str) and PREFIX.fullmatch(r.get("prefix", "x"))
        ),
        "bad prefix",
    ),
)


def handle(data):
    """The whole output of one request (a JSON object with action, file, text and the action's options)."""
    if not isinstance(data, dict):
        return "error: input must be an object\n"
    name = data.get("file")
    file = name.strip() if isinstance(name, str) and name.strip() else "settings.ini"
    try:
        problem = next((text for check, text in CHECKS if not check(data)), None)
        if problem:
            raise Failed(problem)
        lines = ACTIONS[data["action"]](data, file)
    except Failed as exc:
        lines = [f"error: {file}: {exc}"]
    return "\n".join(lines) + "\n"
