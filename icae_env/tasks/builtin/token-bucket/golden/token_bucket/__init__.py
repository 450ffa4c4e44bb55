"""Token-bucket rate limiter simulator (core library, no I/O)."""

from .config import LimiterConfig, parse_config
from .errors import ConfigError, EventError
from .events import Event, parse_event
from .formatting import render
from .simulator import Decision, Simulation, simulate

__all__ = [
    "ConfigError",
    "Decision",
    "Event",
    "EventError",
    "LimiterConfig",
    "Simulation",
    "parse_config",
    "parse_event",
    "render",
    "run_limiter",
    "simulate",
]


def run_limiter(config: dict) -> str:
    """Validate ``config`` (capacity, refill_rate, events, ...) and return the report text."""
    parsed, events = parse_config(config)
    return render(simulate(parsed, events))
