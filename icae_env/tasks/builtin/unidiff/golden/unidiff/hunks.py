"""Grouping an edit script into hunks with context lines."""
from dataclasses import dataclass, field

from .lcs import KEEP, DELETE, INSERT


@dataclass
class Hunk:
    a_start: int  # 0-based index of the first a-line covered
    b_start: int
    a_len: int = 0
    b_len: int = 0
    # (op, line, is_last_of_a, is_last_of_b)
    lines: list = field(default_factory=list)


def _annotate(ops):
    """Attach 0-based a/b positions to every op."""
    out = []
    ai = bi = 0
    for op, line in ops:
        out.append((op, line, ai, bi))
        if op != INSERT:
            ai += 1
        if op != DELETE:
            bi += 1
    return out, ai, bi


def group_hunks(ops, context):
    """Split ``ops`` into hunks; changes separated by <= 2*context kept lines share a hunk."""
    annotated, a_total, b_total = _annotate(ops)
    change_idx = [k for k, item in enumerate(annotated) if item[0] != KEEP]
    if not change_idx:
        return []
    # build [first, last] windows of op indices
    windows = []
    start = prev = change_idx[0]
    for k in change_idx[1:]:
        if k - prev - 1 > 2 * context:
            windows.append((start, prev))
            start = k
        prev = k
    windows.append((start, prev))
    hunks = []
    for first, last in windows:
        lo = max(0, first - context)
        hi = min(len(annotated) - 1, last + context)
        _, _, a0, b0 = annotated[lo]
        hunk = Hunk(a_start=a0, b_start=b0)
        for op, line, ai, bi in annotated[lo:hi + 1]:
            if op != INSERT:
                hunk.a_len += 1
            if op != DELETE:
                hunk.b_len += 1
            last_a = op != INSERT and ai == a_total - 1
            last_b = op != DELETE and bi == b_total - 1
            hunk.lines.append((op, line, last_a, last_b))
        hunks.append(hunk)
    return hunks
