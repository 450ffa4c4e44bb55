"""Text renderings: canonical JSON and explain lines."""

import json


def canonical(value) -> str:
    """Canonical JSON: keys sorted by code point, no whitespace, non-ASCII characters written as-is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def step_line(step) -> str:
    """One explain line: ``#<i> <op> <target>: <effect>``."""
    return f"#{step.index} {step.op} {step.target}: {step.effect}"
