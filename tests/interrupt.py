"""Children that a test interrupts with SIGINT get Python's default handling of it.

A run started in the background by a non-interactive shell (``nohup ... &``) ignores SIGINT, and its children
inherit that, so an interrupted child would never raise KeyboardInterrupt. Start such children with
``preexec_fn=default_sigint``.
"""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """Restore SIGINT's default disposition in the child (Python then turns it into KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
