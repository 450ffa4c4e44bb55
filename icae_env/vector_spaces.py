"""Gymnasium vector-env support for the text spaces: batched spaces, shared text buffers, batch checks.

:mod:`icae_env.spaces` registers these functions with Gymnasium's single-dispatch vector utilities
(``batch_space``, ``create_empty_array``, ``iterate``, ``create_shared_memory``, ``read_from_shared_memory``,
``write_to_shared_memory``); the design is described in that module's docstring. Nothing here needs to be called
directly.

Example:
    >>> import multiprocessing as mp
    >>> from icae_env.spaces import UnicodeText
    >>> space = UnicodeText(4)
    >>> memory = create_text_memory(space, n=2, ctx=mp)
    >>> texts = read_texts(space, memory, n=2)
    >>> write_text(space, 1, "héé✓", memory)
    >>> texts, texts[1] == "héé✓"
    (SharedTexts(('', 'héé✓')), True)
"""

from __future__ import annotations

import multiprocessing as mp
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple, cast, overload

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from icae_env.errors import ArgumentError, ArgumentTypeError

if TYPE_CHECKING:
    from icae_env.spaces import UnicodeText

__all__ = [
    "BYTES_PER_CHAR",
    "SharedTexts",
    "SpaceBatch",
    "TextMemory",
    "batch_of",
    "create_text_memory",
    "empty_texts",
    "iterate_batch",
    "read_texts",
    "write_text",
]

#: UTF-8 takes at most 4 bytes per character (3 for a lone surrogate, kept with ``surrogatepass``).
BYTES_PER_CHAR = 4
_CODEC = ("utf-8", "surrogatepass")


class SpaceBatch(spaces.Tuple):
    """The batch of ``n`` copies of one text or action space (what a vector env declares for ``n`` envs).

    A ``Tuple`` of the copies (as Gymnasium batches ``Text``), except that :meth:`contains` takes any sequence of
    ``n`` members and the vector envs' ``iterate`` refuses a lone member given where a batch belongs (a ``str``
    would otherwise be split into characters, a dict into its keys).
    """

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a sequence (tuple, list, 1-D array, :class:`SharedTexts`) of ``n`` members."""
        if not _is_batch(x) or len(x) != len(self.spaces):
            return False
        return all(space.contains(item) for space, item in zip(self.spaces, x, strict=True))

    def __repr__(self) -> str:
        return f"SpaceBatch({self.spaces[0]!r}, n={len(self.spaces)})"


def _is_batch(x: Any) -> bool:
    if isinstance(x, np.ndarray):
        return x.ndim == 1
    return isinstance(x, Sequence) and not isinstance(x, (str, bytes, bytearray))


def batch_of(space: spaces.Space, n: int = 1) -> SpaceBatch:
    """``batch_space`` for the text and action spaces: ``n`` independently seeded copies, as for ``Text``."""
    generic = cast(spaces.Tuple, batch_space.dispatch(spaces.Space)(space, n))
    return SpaceBatch(generic.spaces, seed=generic.np_random)


def iterate_batch(space: SpaceBatch, items: Any) -> Iterator[Any]:
    """``iterate`` for a :class:`SpaceBatch`: the members of ``items``, one per env.

    Raises:
        ArgumentTypeError: ``items`` is not a sequence (a lone ``str``, dict or action model, say).
        ArgumentError: ``items`` does not hold one member per env.
    """
    n = len(space.spaces)
    if not _is_batch(items):
        what = "a dict" if isinstance(items, Mapping) else type(items).__name__
        raise ArgumentTypeError(
            f"a batch for {space!r} is a list or tuple of {n} items, one per env (e.g. [action] * {n}); got {what}"
        )
    if len(items) != n:
        raise ArgumentError(f"a batch for {space!r} holds one item per env ({n}); got {len(items)}")
    return iter(items)


def empty_texts(space: UnicodeText, n: int = 1, fn: Callable[..., Any] = np.zeros) -> tuple[str, ...]:
    """``create_empty_array`` for ``UnicodeText``: ``n`` empty strings."""
    return ("",) * n


class TextMemory(NamedTuple):
    """The shared buffer of ``n`` texts: a UTF-8 byte count per env and ``n`` slots of fixed capacity.

    Attributes:
        lengths: ``n`` int64: how many bytes of its slot each env's text uses.
        data: ``n * BYTES_PER_CHAR * max_length`` bytes; slot ``i`` starts at ``i * BYTES_PER_CHAR * max_length``.
    """

    lengths: Any
    data: Any


def create_text_memory(space: UnicodeText, n: int = 1, ctx: ModuleType = mp) -> TextMemory:
    """``create_shared_memory`` for ``UnicodeText``: room for ``n`` texts of ``max_length`` characters each."""
    return TextMemory(ctx.Array("q", n), ctx.Array("B", n * BYTES_PER_CHAR * space.max_length))


def _views(memory: TextMemory) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.frombuffer(memory.lengths.get_obj(), dtype=np.int64)
    data = np.frombuffer(memory.data.get_obj(), dtype=np.uint8).reshape(len(lengths), -1)
    return lengths, data


def write_text(space: UnicodeText, index: int, value: Any, memory: TextMemory) -> None:
    """``write_to_shared_memory`` for ``UnicodeText``: store env ``index``'s text (runs in the worker).

    Raises:
        ArgumentTypeError: ``value`` is not a ``str``.
        ArgumentError: ``value`` has more than ``max_length`` characters.
    """
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{space!r} holds str, got {type(value).__name__} (env {index})")
    if len(value) > space.max_length:
        raise ArgumentError(
            f"a {space!r} text has at most {space.max_length} characters; env {index} gave {len(value)}"
        )
    encoded = value.encode(*_CODEC)
    lengths, data = _views(memory)
    data[index, : len(encoded)] = np.frombuffer(encoded, dtype=np.uint8)
    lengths[index] = len(encoded)


def read_texts(space: UnicodeText, memory: TextMemory, n: int = 1) -> SharedTexts:
    """``read_from_shared_memory`` for ``UnicodeText``: a live view of the ``n`` texts (see :class:`SharedTexts`)."""
    lengths, data = _views(memory)
    if len(lengths) != n:
        raise ArgumentError(f"the text buffer holds {len(lengths)} texts, not {n}")
    return SharedTexts(lengths, data)


class SharedTexts(Sequence[str]):
    """The live batch of texts in a shared buffer: each item is decoded from the buffer when it is read.

    ``AsyncVectorEnv`` reads its shared memory once, when it is built, and returns (a deep copy of) that object
    after every ``reset`` and ``step``; a view, unlike a tuple decoded once, follows what the workers write. A
    copy (``copy.deepcopy``, ``copy.copy``, pickling) is a plain ``tuple`` of ``str``, which is what the vector
    env hands back by default (``copy=True``) and what ``SyncVectorEnv`` returns.
    """

    def __init__(self, lengths: np.ndarray, data: np.ndarray) -> None:
        self._lengths, self._data = lengths, data

    def __len__(self) -> int:
        return len(self._lengths)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        i = operator.index(index)
        if not -len(self) <= i < len(self):
            raise IndexError(f"text index {i} out of range for {len(self)} texts")
        i %= len(self)
        return self._data[i, : int(self._lengths[i])].tobytes().decode(*_CODEC)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (SharedTexts, tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a live view has no stable hash

    def __copy__(self) -> tuple[str, ...]:
        return tuple(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)

    def __reduce__(self) -> tuple[type, tuple[tuple[str, ...]]]:
        return tuple, (tuple(self),)

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"
