"""Lint, normalise, type, query and export INI-style settings files."""

from .app import handle

__all__ = ["handle"]
