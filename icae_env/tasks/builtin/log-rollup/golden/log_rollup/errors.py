"""Typed errors of the core library."""


class RequestError(Exception):
    """An option of the rollup request is invalid.

    ``option`` names it (``window``, ``top``, ``percentiles``); the adapter renders it as
    ``error: bad <option>``.
    """

    def __init__(self, option: str) -> None:
        super().__init__(f"bad {option}")
        self.option = option


class LineError(Exception):
    """A log line cannot be used; ``reason`` is the short text shown in the skipped-line report."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
