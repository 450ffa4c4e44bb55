"""Text rendering of a simulation."""

from __future__ import annotations

from .simulator import Decision, Simulation


def format_tokens(milli: int) -> str:
    return f"{milli // 1000}.{milli % 1000:03d}"


def _decision_line(d: Decision) -> str:
    if d.event is None:
        return f"#{d.index} INVALID {d.invalid_field}"
    head = f"#{d.index} t={d.event.t} key={d.event.key}"
    tail = f"cost={d.event.cost} remaining={format_tokens(d.level_milli)}"
    if d.allowed:
        return f"{head} ALLOW {tail}"
    wait = "never" if d.retry_after_ms is None else f"{d.retry_after_ms}ms"
    return f"{head} DENY {tail} retry_after={wait}"


def render(sim: Simulation) -> str:
    lines = [_decision_line(d) for d in sim.decisions]
    lines.append(
        f"summary: allowed={sim.allowed} denied={sim.denied} invalid={sim.invalid} "
        f"keys={sim.keys} consumed={sim.consumed}"
    )
    return "\n".join(lines) + "\n"
