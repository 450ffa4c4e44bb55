"""A course gradebook: final grades, letters, rankings, per-assessment
statistics and a data check from one JSON request."""

from .app import handle

__all__ = ["handle"]
