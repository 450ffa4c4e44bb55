"""Version ranges: sort, match, resolve, expand and compare semantic versions."""

from .app import handle

__all__ = ["handle"]
