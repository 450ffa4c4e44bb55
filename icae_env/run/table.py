"""The result table of a run: per-episode rows and a mean row, as plain text or markdown (``summary.md``).

Project-building episodes get ICAE's columns (Overall, Public, Native, Enhanced, coverage, fallback, budget);
revision episodes get Strict / Graded / Full-pass. When an episode failed, or its policy stopped early on an
endpoint error (``agent_error``: truncated and scored), the whole error is in a last ``error`` column. The mean
row averages every column, seconds included.
"""

from __future__ import annotations

from collections.abc import Sequence

from icae_env.run.episode import EpisodeResult

__all__ = ["format_table"]

_REVISION_COLUMNS = ("task", "Strict", "Graded", "Full-pass", "steps", "s")
_COLUMNS = ("task", "level", "Overall", "Public", "Native", "Enhanced", "coverage", "fallback", "budget", "steps", "s")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _row(r: EpisodeResult) -> tuple[str, ...]:
    return (
        r.task,
        r.level,
        _pct(r.overall),
        _pct(r.public),
        _pct(r.native),
        _pct(r.enhanced),
        _pct(r.task_coverage),
        _pct(r.fallback_rate),
        _pct(r.budget_usage),
        str(r.steps),
        f"{r.seconds:.1f}",
    )


def _error_text(r: EpisodeResult) -> str:
    if r.error:
        return " ".join(r.error.split())
    return f"stopped early (truncated, scored): {' '.join(r.agent_error.split())}" if r.agent_error else ""


def _revision_rows(results: Sequence[EpisodeResult]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for r in results:
        if r.error:
            rows.append((r.task, "ERROR", "", "", "", ""))
        elif r.infra_failure:
            rows.append((r.task, "INFRA", "", "", str(r.steps), f"{r.seconds:.1f}"))
        else:
            full = "-" if r.full_pass is None else ("yes" if r.full_pass else "no")
            rows.append((r.task, _pct(r.strict), _pct(r.graded), full, str(r.steps), f"{r.seconds:.1f}"))
    counted = [r for r in results if r.graded is not None and not r.infra_failure and not r.error]
    if counted:
        n = len(counted)
        rows.append(
            (
                "MEAN (per task)",
                _pct(sum(r.strict or 0.0 for r in counted) / n),
                _pct(sum(r.graded or 0.0 for r in counted) / n),
                f"{100 * sum(bool(r.full_pass) for r in counted) / n:.1f}%",
                f"{sum(r.steps for r in counted) / n:.1f}",
                f"{sum(r.seconds for r in counted) / n:.1f}",
            )
        )
    return rows


def _render(columns: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> str:
    if markdown:
        rows = [[cell.replace("|", "\\|") for cell in row] for row in rows]
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])
    widths = [max(len(str(x)) for x in col) for col in zip(columns, *rows, strict=False)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)).rstrip() for row in [columns, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _with_errors(
    columns: Sequence[str], rows: list[tuple[str, ...]], results: Sequence[EpisodeResult]
) -> tuple[Sequence[str], list[tuple[str, ...]]]:
    """Add the ``error`` column (the whole error of each episode) when any episode has one."""
    errors = [_error_text(r) for r in results]
    if not any(errors):
        return columns, rows
    padded = errors + [""] * (len(rows) - len(errors))  # the mean row has none
    return (*columns, "error"), [(*row, error) for row, error in zip(rows, padded, strict=True)]


def format_table(results: Sequence[EpisodeResult], markdown: bool = False) -> str:
    """Return the per-episode table (plain text, or markdown for summary.md), with a mean row.

    Revision episodes (every result with ``graded`` set, or an error) get Strict / Graded / Full-pass columns.
    """
    if (
        results
        and all(r.graded is not None or r.infra_failure or r.error for r in results)
        and any(r.graded is not None for r in results)
    ):
        return _render(*_with_errors(_REVISION_COLUMNS, _revision_rows(results), results), markdown)
    rows = [_row(r) if not r.error else (r.task, r.level, "ERROR", *[""] * 8) for r in results]
    scored = [r for r in results if r.overall is not None]
    if scored:

        def mean(attr: str) -> float | None:
            values = [getattr(r, attr) for r in scored if getattr(r, attr) is not None]
            return sum(values) / len(values) if values else None

        rows.append(
            (
                "MEAN",
                "",
                *(
                    _pct(mean(a))
                    for a in (
                        "overall",
                        "public",
                        "native",
                        "enhanced",
                        "task_coverage",
                        "fallback_rate",
                        "budget_usage",
                    )
                ),
                f"{sum(r.steps for r in scored) / len(scored):.1f}",
                f"{sum(r.seconds for r in scored) / len(scored):.1f}",
            )
        )
    return _render(*_with_errors(_COLUMNS, rows, results), markdown)
