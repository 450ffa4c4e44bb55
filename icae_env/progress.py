"""The one-line progress bar that long commands (runs, task generation, certification) draw on stderr."""

from __future__ import annotations

import sys
import time

__all__ = ["draw_progress"]


def draw_progress(done: int, total: int, started: float, text: str = "") -> None:
    """Redraw ``[####      ] done/total elapsed text`` in place on stderr.

    Args:
        done: Items finished.
        total: Items in all (0 draws an empty bar).
        started: ``time.monotonic()`` when the work began.
        text: What just happened (cut to 48 characters).
    """
    bar = "#" * int(20 * done / max(total, 1))
    sys.stderr.write(f"\r[{bar:<20}] {done}/{total} {time.monotonic() - started:6.1f}s {text:<48.48}")
    sys.stderr.flush()
