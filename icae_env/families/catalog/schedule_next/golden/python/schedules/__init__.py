"""Cron schedules: next fire times, field explanations, ranges, day counts, clashes."""

from .app import handle

__all__ = ["handle"]
