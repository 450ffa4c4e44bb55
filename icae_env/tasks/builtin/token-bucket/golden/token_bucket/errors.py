"""Typed errors."""


class ConfigError(Exception):
    """The limiter configuration is invalid; ``field`` is the first offending field."""

    def __init__(self, field: str) -> None:
        super().__init__(f"invalid config: {field}")
        self.field = field


class EventError(Exception):
    """One event is invalid; ``field`` is the first offending field (or ``event``)."""

    def __init__(self, field: str) -> None:
        super().__init__(f"invalid event: {field}")
        self.field = field
