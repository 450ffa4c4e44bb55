"""Token-bucket replays: decisions, retry hints, per-key tallies, a summary, windows."""

from .app import handle

__all__ = ["handle"]
