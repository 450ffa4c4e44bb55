"""A static sentence encoder distilled from all-MiniLM-L6-v2: numpy only, microseconds per question.

A sentence's vector is the sum of its features' vectors, mapped by one matrix into the teacher's space and
normalised. Its features are the lexical router's tokens (stems and concept tokens,
:func:`~icae_env.user_agent.features.text.tokens`) and the bigrams of adjacent stems. The vectors and the matrix were
fitted so that the encoder's vector points where the teacher's does (``all-MiniLM-L6-v2``, a contextual transformer) on
a corpus of technical sentences: docstrings of installed Python packages, Debian manual pages, and the text of the
built-in tasks and of the train splits of the task families (never a held-out family, the ICAE sample or a labelled
question). The fit is :mod:`benchmarks.router_fit.encoder_distill` (needs the ``embedding`` extra); the result ships
with the package as ``static_encoder.npz``, so the encoder needs nothing beyond numpy.

It keeps much of what a contextual model knows about which words go together ("out-of-the-box" with "default",
"gives up" with "timeout") and nothing of word order beyond bigrams. Encoding is deterministic: the same features in
the same order give the same float operations.

Example:
    >>> encoder = default_encoder()
    >>> a, b, c = (encoder.encode(t) for t in ("default timeout", "how long do we wait by default", "a cake recipe"))
    >>> bool(a @ b > a @ c)
    True
"""

from __future__ import annotations

import threading
import zipfile
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from icae_env.errors import ArgumentError, TaskValidationError
from icae_env.user_agent.features.text import tokens, with_bigrams

__all__ = ["DEFAULT_ENCODER_PATH", "StaticEncoder", "default_encoder", "encoder_features"]

#: Where the shipped weights live (package data).
DEFAULT_ENCODER_PATH = Path(__file__).with_name("static_encoder.npz")
_CACHE_SIZE = 4096


def encoder_features(text: str) -> list[str]:
    """Return the encoder's features of ``text``: its tokens, then the bigrams of adjacent stems (``a_b``)."""
    return with_bigrams(tokens(text))


class StaticEncoder:
    """Feature vectors summed, projected and normalised (see the module docstring).

    Args:
        vocabulary: The features, one per row of ``vectors``.
        vectors: Shape ``(len(vocabulary), rank)``.
        projection: Shape ``(rank, dimension)``: maps a summed vector into the teacher's space.

    Raises:
        ArgumentError: if the shapes disagree.
    """

    def __init__(self, vocabulary: Sequence[str], vectors: np.ndarray, projection: np.ndarray) -> None:
        vectors, projection = np.asarray(vectors, np.float32), np.asarray(projection, np.float64)
        if vectors.ndim != 2 or vectors.shape[0] != len(vocabulary) or projection.shape[0] != vectors.shape[1]:
            raise ArgumentError(
                f"encoder shapes disagree: {len(vocabulary)} features, vectors {vectors.shape}, "
                f"projection {projection.shape}"
            )
        self.vocabulary = tuple(vocabulary)
        self.index = {f: i for i, f in enumerate(self.vocabulary)}
        self.vectors, self.projection = vectors, projection
        self.dimension = int(projection.shape[1])
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def encode(self, text: str) -> np.ndarray:
        """Return the unit vector of ``text`` (zeros when none of its features is known); cached per text."""
        with self._lock:
            vector = self._cache.get(text)
            if vector is not None:
                self._cache.move_to_end(text)
                return vector
        vector = self._encode(text)
        vector.setflags(write=False)
        with self._lock:
            self._cache[text] = vector
            if len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        return vector

    def _encode(self, text: str) -> np.ndarray:
        ids = [i for i in map(self.index.get, encoder_features(text)) if i is not None]
        if not ids:
            return np.zeros(self.dimension)
        vector = self.vectors[ids].sum(axis=0, dtype=np.float64) @ self.projection
        norm = float(np.sqrt(vector @ vector))
        return vector / norm if norm > 0 else np.zeros(self.dimension)

    def encode_many(self, texts: Sequence[str]) -> np.ndarray:
        """Return one unit row per text, shape ``(len(texts), dimension)``."""
        return np.stack([self.encode(t) for t in texts]) if texts else np.zeros((0, self.dimension))

    def save(self, path: str | Path) -> None:
        """Write the encoder as a compressed ``.npz``.

        Each vector is stored as int8 with a float32 scale (symmetric, per row), the projection as float32;
        :meth:`load` gives back the quantised vectors.
        """
        scale = np.abs(self.vectors).max(axis=1) / 127.0
        scale[scale == 0] = 1.0
        np.savez_compressed(
            path,
            vocabulary=np.array("\n".join(self.vocabulary)),
            vectors=np.round(self.vectors / scale[:, None]).astype(np.int8),
            scale=scale.astype(np.float32),
            projection=self.projection.astype(np.float32),
        )

    @classmethod
    def load(cls, path: str | Path) -> StaticEncoder:
        """Read an encoder written by :meth:`save`.

        Raises:
            TaskValidationError: naming the file and the field that is missing or malformed.
        """
        fields = _read_fields(Path(path))
        vectors = fields["vectors"].astype(np.float32) * fields["scale"][:, None]
        return cls(str(fields["vocabulary"]).split("\n"), vectors, fields["projection"])

    def __getstate__(self) -> dict[str, Any]:
        return {"vocabulary": self.vocabulary, "vectors": self.vectors, "projection": self.projection}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["vocabulary"], state["vectors"], state["projection"])  # type: ignore[misc]


#: Per field of an encoder file: its number of dimensions and its kind of numbers.
_FIELDS = {"vocabulary": (0, np.str_), "vectors": (2, np.integer), "scale": (1, np.floating),
           "projection": (2, np.floating)}  # fmt: skip


def _read_fields(path: Path) -> dict[str, np.ndarray]:
    """Return the checked arrays of an encoder file (see :meth:`StaticEncoder.load`)."""
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise TaskValidationError(str(path), "-", "not an .npz archive")
        with data:
            fields = {}
            for name in _FIELDS:
                if name not in data.files:
                    raise TaskValidationError(str(path), name, "missing from the encoder file")
                fields[name] = data[name]
    except TaskValidationError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as error:
        raise TaskValidationError(str(path), "-", f"not a readable encoder file ({error})") from None
    for name, (rank, kind) in _FIELDS.items():
        array = fields[name]
        if array.ndim != rank or not np.issubdtype(array.dtype, kind):
            raise TaskValidationError(str(path), name, f"expected a {rank}-d {kind.__name__} array, got {array.dtype} "
                                      f"of shape {array.shape}")  # fmt: skip
        if kind is np.floating and not np.all(np.isfinite(array)):
            raise TaskValidationError(str(path), name, "holds NaN or infinite values")
    rows, rank = fields["vectors"].shape
    checks = {
        "vocabulary": (len(str(fields["vocabulary"]).split("\n")), rows, "features for", "vectors"),
        "scale": (fields["scale"].shape[0], rows, "scales for", "vectors"),
        "projection": (fields["projection"].shape[0], rank, "projection rows for vectors of rank", ""),
    }
    for name, (found, wanted, what, unit) in checks.items():
        if found != wanted:
            raise TaskValidationError(str(path), name, f"{found} {what} {wanted} {unit}".strip())
    return fields


@lru_cache(maxsize=1)
def default_encoder() -> StaticEncoder:
    """Return the shipped encoder (loaded once per process)."""
    return StaticEncoder.load(DEFAULT_ENCODER_PATH)
