"""Log summaries: rollups, latencies, top services, line checks, service figures."""

from .app import handle

__all__ = ["handle"]
