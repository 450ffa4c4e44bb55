"""One request in, one timeline out."""

from .engine import run
from .policy import InvalidInput, read_request
from .rules import duration


def line(record):
    number, label, action, delay, elapsed = record
    if action == "retry":
        action = f"retry in {duration(delay)} (elapsed {duration(elapsed)})"
    return f"attempt {number}: {label} -> {action}"


def handle(data):
    """The whole output of one request: {name, policy, outcomes?}."""
    try:
        name, policy, outcomes = read_request(data)
    except InvalidInput as exc:
        return f"error: invalid {exc}\n"
    records, reason, waited = run(policy, outcomes)
    lines = [f"== {name} ==", *(line(r) for r in records)]
    lines.append(f"result: {reason} attempts={len(records)} waited={duration(waited)}")
    return "\n".join(lines) + "\n"
