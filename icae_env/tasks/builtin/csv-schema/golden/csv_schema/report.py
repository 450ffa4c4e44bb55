"""Text rendering of a Report."""


def render_report(report, max_errors=None):
    total = len(report.violations)
    shown = report.violations if max_errors is None else report.violations[:max_errors]
    lines = [str(v) for v in shown]
    if len(shown) < total:
        lines.append(f"... {total - len(shown)} more not shown")
    lines.append(f"summary: {report.rows} rows, {total} errors")
    return "".join(line + "\n" for line in lines)
