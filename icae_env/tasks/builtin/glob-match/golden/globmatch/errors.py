"""Typed errors raised by the core."""


class GlobError(Exception):
    """Base class of every error the core raises."""


class GlobSyntaxError(GlobError):
    """The pattern is malformed; ``position`` is the 0-based character index the message names."""

    def __init__(self, reason, position):
        super().__init__(f"{reason} at position {position}")
        self.reason = reason
        self.position = position


class TooManyAlternatives(GlobError):
    """Brace expansion would produce more than ``limit`` alternatives."""

    def __init__(self, limit):
        super().__init__(f"too many alternatives (more than {limit})")
        self.limit = limit
