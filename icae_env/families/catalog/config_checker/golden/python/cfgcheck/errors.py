"""Errors that end a request: each prints one error line."""


class Failed(Exception):
    """The request cannot be answered; its text follows "error: <file>" on the only output line."""
