"""JSON Pointer (RFC 6901): parsing, display and resolution against in-memory JSON values."""

import re

from .errors import PointerError

ROOT_LABEL = "(root)"
_INDEX = re.compile(r"(?:0|[1-9][0-9]*)\Z")
_BAD_ESCAPE = re.compile(r"~(?![01])")


class Pointer:
    """A parsed pointer: the text as written plus its decoded reference tokens."""

    __slots__ = ("text", "tokens")

    def __init__(self, text: str, tokens: tuple[str, ...]) -> None:
        self.text = text
        self.tokens = tokens

    @property
    def is_root(self) -> bool:
        return not self.tokens

    def display(self) -> str:
        """The pointer as printed in messages: as written, or ``(root)`` for the empty pointer."""
        return self.text if self.text else ROOT_LABEL

    def with_last(self, index: int) -> str:
        """Display form with the last token replaced by a concrete array index (``/a/-`` -> ``/a/3``)."""
        return self.text[: self.text.rfind("/") + 1] + str(index)

    def is_proper_prefix_of(self, other: "Pointer") -> bool:
        n = len(self.tokens)
        return n < len(other.tokens) and other.tokens[:n] == self.tokens


def parse(text: str) -> Pointer | None:
    """Parse ``text``; return None when it is not a valid pointer.

    Valid: the empty string, or ``/`` followed by tokens separated by ``/`` in which every ``~`` is followed
    by ``0`` or ``1``. ``~1`` decodes to ``/`` and ``~0`` to ``~`` (in that order, so ``~01`` is ``~1``).
    """
    if text == "":
        return Pointer(text, ())
    if not text.startswith("/") or _BAD_ESCAPE.search(text):
        return None
    tokens = tuple(t.replace("~1", "/").replace("~0", "~") for t in text[1:].split("/"))
    return Pointer(text, tokens)


def array_index(token: str, size: int, pointer: Pointer, *, for_insert: bool = False) -> int:
    """Return the index named by ``token`` in an array of ``size`` elements.

    ``-`` stands for the position after the last element (``size``). Only ``0`` or digits without a
    leading zero are indices. An index must be < size, or <= size when ``for_insert``.
    """
    if token == "-":
        index = size
    elif _INDEX.match(token):
        index = int(token)
    else:
        raise PointerError(f"invalid array index '{token}' in {pointer.display()}")
    if index > size or (index == size and not for_insert):
        raise PointerError(f"index out of range: {pointer.display()}")
    return index


def _step(container, token: str, pointer: Pointer):
    if isinstance(container, dict):
        if token not in container:
            raise PointerError(f"path not found: {pointer.display()}")
        return container[token]
    if isinstance(container, list):
        return container[array_index(token, len(container), pointer)]
    raise PointerError(f"path not found: {pointer.display()}")


def parent_of(document, pointer: Pointer):
    """Return the container that holds the pointer's last token (the pointer must not be the root)."""
    node = document
    for token in pointer.tokens[:-1]:
        node = _step(node, token, pointer)
    return node


def get(document, pointer: Pointer):
    """Return the value the pointer refers to."""
    if pointer.is_root:
        return document
    return _step(parent_of(document, pointer), pointer.tokens[-1], pointer)
