"""Timesheets and gross pay for hourly staff, one JSON request at a time."""

from .app import handle

__all__ = ["handle"]
