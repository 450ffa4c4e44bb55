"""Retry schedules: the attempt-by-attempt timeline of a retry policy
over some outcomes."""

from .app import handle

__all__ = ["handle"]
