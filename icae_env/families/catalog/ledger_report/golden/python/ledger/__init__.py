"""Ledger reports: totals, top entries, checks, date ranges and averages."""

from .app import handle

__all__ = ["handle"]
