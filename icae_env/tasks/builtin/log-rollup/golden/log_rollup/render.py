"""Text rendering of a Report."""

from .records import LEVELS
from .stats import format_percent, nearest_rank
from .timestamps import format_utc
from .windows import Report, Window

MAX_SKIPPED_SHOWN = 5


def _render_window(window: Window, report: Report) -> list[str]:
    lines = [f"window {format_utc(window.start)} events={window.events}"]
    levels = " ".join(f"{lv}={window.levels[lv]}" for lv in LEVELS if window.levels[lv])
    lines.append(f"  levels: {levels}")
    lines.append(f"  errors: {window.errors}/{window.events} ({format_percent(window.errors, window.events)})")
    latencies = sorted(window.latencies)
    latency = f"  latency: n={len(latencies)}"
    if latencies:
        latency += "".join(f" p{p}={nearest_rank(latencies, p)}ms" for p in report.percentiles)
    lines.append(latency)
    top = " ".join(f"{name}={count}" for name, count in window.top_services(report.top))
    lines.append(f"  top: {top}")
    return lines


def render(report: Report) -> str:
    """Windows in time order, then the skipped-line report, then the summary line."""
    out: list[str] = []
    for window in report.windows:
        out.extend(_render_window(window, report))
    for line_no, reason in report.skipped[:MAX_SKIPPED_SHOWN]:
        out.append(f"skipped line {line_no}: {reason}")
    hidden = len(report.skipped) - MAX_SKIPPED_SHOWN
    if hidden > 0:
        out.append(f"({hidden} more skipped lines not shown)")
    out.append(
        f"summary: windows={len(report.windows)} events={report.events} skipped={len(report.skipped)}"
    )
    return "\n".join(out) + "\n"
