"""Install orders, stages, audits, what is left, explanations and impact."""

from .app import handle

__all__ = ["handle"]
