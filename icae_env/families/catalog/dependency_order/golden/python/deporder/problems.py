"""What is wrong with a walk, as the lines the reports print."""

from .rules import ITEM, first_kind, report_missing


def cycle_text(loop):
    return " -> ".join([*loop, loop[0]])


def _missing(result):
    return report_missing([name for name, _ in result.missing])


def error_line(result):
    """The one error line of an install-order report, or None when nothing is wrong."""
    if not result.cycles and not result.missing:
        return None
    if first_kind(result) == "cycle":
        return f"error: cycle: {cycle_text(result.cycles[0])}"
    return f"error: missing {ITEM}s: " + ", ".join(_missing(result))


def audit_lines(result):
    """Every problem of a whole-map walk, one line each (no lines when nothing is wrong)."""
    if not result.cycles and not result.missing:
        return []
    needed_by = dict(result.missing)
    missing = [f"missing: {name} (needed by {needed_by[name]})" for name in _missing(result)]
    cycles = [f"cycle: {cycle_text(loop)}" for loop in result.cycles]
    return cycles + missing if first_kind(result) == "cycle" else missing + cycles
