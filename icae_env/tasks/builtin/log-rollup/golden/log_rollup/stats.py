"""Exact integer statistics: nearest-rank percentiles and a half-up rounded percentage."""


def nearest_rank(sorted_values: list[int], p: int) -> int:
    """The value at rank ceil(p/100 * n) (1-based) of an ascending, non-empty list."""
    n = len(sorted_values)
    rank = max(1, -(-p * n // 100))
    return sorted_values[rank - 1]


def percent_tenths(part: int, whole: int) -> int:
    """``100 * part / whole`` in tenths of a percent, exact halves rounded up."""
    return (2000 * part + whole) // (2 * whole)


def format_percent(part: int, whole: int) -> str:
    tenths = percent_tenths(part, whole)
    return f"{tenths // 10}.{tenths % 10}%"
