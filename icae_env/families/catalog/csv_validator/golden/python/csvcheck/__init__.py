"""Check CSV text against a column schema and print a report of every problem."""

from .app import handle

__all__ = ["handle"]
