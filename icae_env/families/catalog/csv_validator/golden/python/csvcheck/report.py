"""The report's lines after the title: the listed problems, then the summary."""

from .rules import CAP_DEFAULT, OVERFLOW_NOTE, summary


def render(violations, rows, max_errors):
    limit = CAP_DEFAULT if max_errors is None else max_errors
    shown = violations if limit is None else violations[:limit]
    lines = [str(v) for v in shown]
    if len(shown) < len(violations) and OVERFLOW_NOTE:
        lines.append(f"... {len(violations) - len(shown)} more not shown")
    return lines + [summary(rows, len(violations))]
