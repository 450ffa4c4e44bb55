"""The cross-encoder's weights file: its arrays, how they are checked, and how an ensemble member is built from them.

A weights file (``.npz``) holds the shared WordPiece vocabulary (``vocab``), ``config`` (heads, max length, layers,
models), the shared word embeddings, and per model ``m<k>.`` the BERT arrays; matrices are int8 values (``.q``) with
a float scale per row (``.scale``). :func:`check_fields` names the file and the field of anything that does not fit.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from icae_env.errors import TaskValidationError

__all__ = ["Matrices", "Member", "check_fields", "read_member", "save_fields"]

Matrices = dict[str, tuple[np.ndarray, np.ndarray]]
_LAYER_MATRICES = (
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "intermediate.dense",
    "output.dense",
)
_NORMS = ("attention.output.LayerNorm", "output.LayerNorm")


@dataclass(frozen=True)
class Member:
    """One model of the ensemble: everything but the (shared) word embeddings and vocabulary."""

    position: np.ndarray
    type: np.ndarray
    norm: tuple[np.ndarray, np.ndarray]
    layers: list[tuple[Matrices, Matrices]]
    pooler: tuple[np.ndarray, np.ndarray]
    head: tuple[np.ndarray, float]


def read_member(fields: dict[str, np.ndarray], prefix: str, layers: int) -> Member:
    """Return the ensemble member of ``fields`` whose arrays start with ``prefix`` (float32 matrices, transposed)."""

    def matrix(name: str) -> np.ndarray:
        return _matrix(fields, prefix + name)

    stack = []
    for n in range(layers):
        layer = f"{prefix}encoder.layer.{n}."
        matrices = {m: (_matrix(fields, layer + m + ".weight").T.copy(), fields[layer + m + ".bias"])
                    for m in _LAYER_MATRICES}  # fmt: skip
        norms = {m: (fields[layer + m + ".weight"], fields[layer + m + ".bias"]) for m in _NORMS}
        stack.append((matrices, norms))
    return Member(
        position=matrix("embeddings.position_embeddings.weight"),
        type=matrix("embeddings.token_type_embeddings.weight"),
        norm=(fields[prefix + "embeddings.LayerNorm.weight"], fields[prefix + "embeddings.LayerNorm.bias"]),
        layers=stack,
        pooler=(matrix("pooler.dense.weight").T.copy(), fields[prefix + "pooler.dense.bias"]),
        head=(matrix("classifier.weight")[0], float(fields[prefix + "classifier.bias"][0])),
    )


def _matrix(fields: dict[str, np.ndarray], name: str) -> np.ndarray:
    """Return the float32 matrix ``name`` (rows = outputs) from its int8 values and per-row scales."""
    return fields[name + ".q"].astype(np.float32) * fields[name + ".scale"][:, None]


def _layer_count(fields: dict[str, np.ndarray], prefix: str) -> int:
    start = prefix + "encoder.layer."
    return len({name[len(start) :].split(".")[0] for name in fields if name.startswith(start)})


def check_fields(fields: dict[str, np.ndarray], path: str) -> None:
    """Raise :class:`TaskValidationError` naming ``path`` and the field unless ``fields`` make a cross-encoder."""

    def fail(field: str, reason: str) -> TaskValidationError:
        return TaskValidationError(path, field, reason)

    def need(name: str, shape: tuple[int, ...], matrix: bool = False) -> None:
        wanted = [(name + ".q", np.integer, shape), (name + ".scale", np.floating, shape[:1])] if matrix else [
            (name, np.floating, shape)]  # fmt: skip
        for key, kind, want in wanted:
            if key not in fields:
                raise fail(key, "missing from the cross-encoder file")
            array = fields[key]
            if not np.issubdtype(array.dtype, kind) or array.shape != want:
                raise fail(key, f"expected {kind.__name__} of shape {want}, got {array.dtype} of shape {array.shape}")

    sizes = ("embeddings.word_embeddings.weight.q", "m0.embeddings.position_embeddings.weight.q",
             "m0.encoder.layer.0.intermediate.dense.weight.q")  # fmt: skip
    for name in ("vocab", "config", *sizes):
        if name not in fields:
            raise fail(name, "missing from the cross-encoder file")
        if name in sizes and fields[name].ndim != 2:
            raise fail(name, f"expected a matrix, got shape {fields[name].shape}")
    config = fields["config"]
    if config.shape != (4,) or not np.issubdtype(config.dtype, np.integer):
        raise fail("config", f"expected 4 integers (heads, max length, layers, models), got {config!r}")
    heads, max_length, layers, members = (int(v) for v in config)
    (rows, hidden), positions, inner = fields[sizes[0]].shape, len(fields[sizes[1]]), len(fields[sizes[2]])
    if heads < 1 or hidden % heads or not 8 <= max_length <= positions:
        raise fail("config", f"{heads} heads for width {hidden}, max length {max_length} for {positions} positions")
    vocabulary = str(fields["vocab"]).split("\n")
    if len(vocabulary) != rows or not {"[UNK]", "[CLS]", "[SEP]"} <= set(vocabulary):
        raise fail("vocab", f"{len(vocabulary)} tokens for {rows} embedding rows, or no [UNK], [CLS] or [SEP]")
    found = {name.split(".")[0] for name in fields if name.startswith("m") and "." in name}
    if members < 1 or found != {f"m{k}" for k in range(members)}:
        raise fail("config", f"{members} models, but the file has arrays of {sorted(found)}")
    need("embeddings.word_embeddings.weight", (rows, hidden), True)
    for k in range(members):
        _check_member(need, fail, fields, f"m{k}.", (hidden, inner, positions, layers))


def _check_member(need: Any, fail: Any, fields: dict[str, np.ndarray], prefix: str, sizes: tuple[int, ...]) -> None:
    hidden, inner, positions, layers = sizes
    if _layer_count(fields, prefix) != layers or layers < 1:
        raise fail("config", f"{layers} layers, but {prefix[:-1]} has arrays of {_layer_count(fields, prefix)}")
    need(prefix + "embeddings.position_embeddings.weight", (positions, hidden), True)
    need(prefix + "embeddings.token_type_embeddings.weight", (2, hidden), True)
    for n in range(layers):
        shapes = {m: (hidden, hidden) for m in _LAYER_MATRICES[:4]}
        shapes |= {"intermediate.dense": (inner, hidden), "output.dense": (hidden, inner)}
        for m, shape in shapes.items():
            need(f"{prefix}encoder.layer.{n}.{m}.weight", shape, True)
            need(f"{prefix}encoder.layer.{n}.{m}.bias", shape[:1])
        for m in _NORMS:
            need(f"{prefix}encoder.layer.{n}.{m}.weight", (hidden,))
            need(f"{prefix}encoder.layer.{n}.{m}.bias", (hidden,))
    for name in ("embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias", "pooler.dense.bias"):
        need(prefix + name, (hidden,))
    need(prefix + "pooler.dense.weight", (hidden, hidden), True)
    need(prefix + "classifier.weight", (1, hidden), True)
    need(prefix + "classifier.bias", (1,))


def save_fields(fields: dict[str, np.ndarray], path: str | Path) -> Path:
    """Write a weights file's arrays to exactly ``path`` (no ``.npz`` appended), atomically; return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, suffix=".part", delete=False) as out:
        try:
            np.savez_compressed(out, **fields)  # type: ignore[arg-type]
        except BaseException:
            Path(out.name).unlink(missing_ok=True)
            raise
    os.chmod(out.name, 0o644)
    os.replace(out.name, path)
    return path
