"""Typed errors raised by the policy model."""


class InputError(Exception):
    """A field of the input is missing or invalid.

    ``field`` names the first offending field; the adapter renders it as
    ``error: invalid <field>``.
    """

    def __init__(self, field: str) -> None:
        super().__init__(f"invalid {field}")
        self.field = field


class PolicyError(InputError):
    """A field of the policy object is invalid."""
