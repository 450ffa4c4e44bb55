"""Text rendering of a report."""

from __future__ import annotations

from .engine import AttemptRecord, Report


def format_duration(ms: int) -> str:
    """``<ms>ms`` below one second, otherwise seconds with exactly three decimals."""
    if ms < 1000:
        return f"{ms}ms"
    return f"{ms // 1000}.{ms % 1000:03d}s"


def _attempt_line(record: AttemptRecord) -> str:
    if record.action == "retry":
        action = (
            f"retry in {format_duration(record.delay_ms)} "
            f"(elapsed {format_duration(record.elapsed_ms)})"
        )
    elif record.action == "success":
        action = "success"
    else:
        action = "give up"
    return f"attempt {record.number}: {record.label} -> {action}"


def render(report: Report) -> str:
    lines = [_attempt_line(r) for r in report.attempts]
    lines.append(
        f"result: {report.reason} attempts={len(report.attempts)} "
        f"waited={format_duration(report.waited_ms)}"
    )
    return "\n".join(lines) + "\n"
