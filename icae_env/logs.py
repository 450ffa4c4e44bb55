"""Logging helpers: a warning that a process prints once, however many sandboxes or envs repeat it."""

from __future__ import annotations

import logging
import threading

__all__ = ["warn_once"]

_SEEN: set[str] = set()
_LOCK = threading.Lock()


def warn_once(logger: logging.Logger, message: str) -> bool:
    """Log ``message`` as a warning the first time this process sees it; return whether it was logged."""
    with _LOCK:
        if message in _SEEN:
            return False
        _SEEN.add(message)
    logger.warning(message)
    return True
