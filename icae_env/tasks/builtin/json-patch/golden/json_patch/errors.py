"""Typed errors of the patch engine."""


class PatchError(Exception):
    """An operation of the patch could not be checked or applied.

    Attributes:
        index: zero-based position of the failing operation in the patch.
        reason: the fixed, single-line reason text (without the ``op <i>:`` prefix).
    """

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"op {index}: {reason}")
        self.index = index
        self.reason = reason


class PointerError(Exception):
    """A pointer could not be resolved against the document; ``reason`` is the fixed reason text."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
