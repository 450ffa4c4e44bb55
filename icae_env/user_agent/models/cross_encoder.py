"""A cross-encoder in numpy: reads a question and a record together and scores "this record answers the question".

The ``distilled`` router's gate (:mod:`icae_env.user_agent.routers.distilled`) sees a question and a record only
through shared words and static-encoder cosines, so some paraphrases in other words and some questions on another
subject in the record's words look alike to it. A model that reads both texts together separates more of them
(``benchmarks/cross_encoder_probe.py``). This is all-MiniLM-L6-v2 (six BERT layers, 384 wide) fine-tuned as a
cross-encoder on the built-in tasks' labelled questions (:mod:`benchmarks.router_fit.cross_encoder_fit`), run here
with numpy only: BERT's uncased WordPiece tokenizer (:mod:`icae_env.user_agent.models.wordpiece`) and the encoder's
forward pass (GELU in its tanh form, within 5e-4 of BERT's). The input is ``[CLS] question [SEP] record [SEP]``
cut at 128 tokens: the record is cut to fit, and a question is cut only when it leaves no room for the record
(:func:`record_text` says what of a record is read); the output is one logit.

The shipped weights (``cross_encoder.npz`` beside this module, 41 MB) are an ensemble of three such models, each
fine-tuned without one third of the built-in tasks (``benchmarks/cross_encoder_probe.py``'s fold models, fitted by
``python -m benchmarks.router_fit.cross_encoder_fit --out FILE``; needs the ``embedding`` extra and a source checkout,
about 40 minutes on 2 cores): its logit is the models' mean. The models share one word-embedding matrix; every other
matrix is int8 with one scale per row. ``$ICAE_ENV_CROSS_ENCODER`` names another weights file
(:func:`cross_encoder_path`). The default ``cascade`` router (:mod:`icae_env.user_agent.routers.cascade`) calls the
model only for questions its gate is unsure about: about 20 ms per model and 128-token record on one 2-core machine, so
about 0.3 s for a question's usual four or five candidates; each (question, record) logit is computed on its own and
remembered, in the process and on disk (:mod:`icae_env.user_agent.models.logit_store`: once per machine). A loaded
ensemble holds its matrices as float32 (about 140 MB).
"""

from __future__ import annotations

import multiprocessing
import os
import zipfile
import zlib
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import lru_cache
from pathlib import Path

import numpy as np

from icae_env.errors import ConfigError, ModelWeightsMissing, TaskValidationError
from icae_env.user_agent.base import Document, routable_response
from icae_env.user_agent.models.cross_encoder_file import Matrices, check_fields, read_member
from icae_env.user_agent.models.logit_store import LogitStore, file_digest
from icae_env.user_agent.models.wordpiece import WordPiece

__all__ = [
    "CrossEncoder",
    "blas_threads",
    "cross_encoder_path",
    "default_cross_encoder",
    "load_cross_encoder",
    "record_text",
]

#: The weights shipped with the package.
SHIPPED_PATH = Path(__file__).with_name("cross_encoder.npz")
#: The environment variable naming another weights file.
PATH_VARIABLE = "ICAE_ENV_CROSS_ENCODER"
#: The environment variable giving the BLAS threads of the forward passes (:func:`blas_threads`).
THREADS_VARIABLE = "ICAE_ENV_BLAS_THREADS"
_REMEMBERED = 200_000  # logits remembered per model (about 40 MB at most); then forgotten all at once
#: How much of a record's response the model reads (after its triggers).
RESPONSE_CHARS = 700
#: A layer's matrices (transposed: inputs x outputs) or layer norms, with their biases, by name.


def record_text(doc: Document) -> str:
    """Return the text of ``doc`` that the cross-encoder reads after the question: triggers, then the response."""
    return "; ".join(doc.triggers) + " || " + routable_response(doc)[:RESPONSE_CHARS]


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    return centred / np.sqrt((centred * centred).mean(-1, keepdims=True) + 1e-12) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh form, with one temporary (within 5e-4 of the erf form that BERT uses; seven times faster here)."""
    y = x * x
    y *= 0.044715
    y += 1.0
    y *= x
    y *= 0.7978845608
    np.tanh(y, out=y)
    y += 1.0
    y *= x
    y *= 0.5
    return y


class CrossEncoder:
    """The fine-tuned cross-encoder (module docstring), from the checked arrays of a weights file.

    Args:
        fields: The arrays of a weights file (:meth:`load` reads and checks them).
        store: Where logits are remembered across processes (:meth:`load` gives the weights file's store).
    """

    def __init__(self, fields: dict[str, np.ndarray], store: LogitStore | None = None) -> None:
        #: Where logits are remembered across processes (None: in this process only).
        self.store = store
        self.tokenizer = WordPiece(str(fields["vocab"]).split("\n"))
        self._records: dict[str, list[int]] = {}
        self._logits: dict[tuple[str, str], float] = {}
        self.heads, self.max_length, layers, members = (int(v) for v in fields["config"])
        self._word_q = fields["embeddings.word_embeddings.weight.q"]
        self._word_scale = fields["embeddings.word_embeddings.weight.scale"]
        self.members = [read_member(fields, f"m{k}.", layers) for k in range(members)]

    @classmethod
    def load(cls, path: str | Path) -> CrossEncoder:
        """Read and check a weights file written by :func:`benchmarks.router_fit.cross_encoder_fit.export`.

        Its logits are remembered on disk by the :class:`~icae_env.user_agent.models.logit_store.LogitStore` of the
        file's digest (none when the store is turned off).

        Raises:
            TaskValidationError: naming the file and the field when the file is unreadable, an array is missing or
                has the wrong type or shape, or the vocabulary or configuration does not fit the arrays.
        """
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                fields = {name: data[name] for name in data.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as error:
            raise TaskValidationError(str(path), "-", f"not a readable cross-encoder file ({error})") from None
        check_fields(fields, str(path))
        return cls(fields, LogitStore.for_weights(file_digest(path)))

    def inputs(self, question: str | list[int], records: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return token ids, token types and the padding mask of ``[CLS] question [SEP] record [SEP]`` per record.

        The record is cut to fit ``max_length``; the question only when it would leave no room for one record token.
        ``question`` may be given as its token ids.
        """
        q = (self.tokenizer.encode(question) if isinstance(question, str) else question)[: self.max_length - 4]
        cls, sep = self.tokenizer.cls, self.tokenizer.sep
        rows = [[cls, *q, sep, *self._record_ids(r)[: self.max_length - len(q) - 3], sep]
                for r in records]  # fmt: skip
        width = max(len(row) for row in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        types = np.zeros_like(ids)
        mask = np.zeros(ids.shape, dtype=bool)
        for n, row in enumerate(rows):
            ids[n, : len(row)] = row
            types[n, len(q) + 2 : len(row)] = 1
            mask[n, : len(row)] = True
        return ids, types, mask

    def _record_ids(self, record: str) -> list[int]:
        """Return the token ids of a record text, remembered (records are asked about again and again)."""
        ids = self._records.get(record)
        if ids is None:
            ids = self.tokenizer.encode(record)[: self.max_length]
            if len(self._records) < 20_000:
                self._records[record] = ids
        return ids

    def logits(self, question: str, records: Sequence[str]) -> np.ndarray:
        """Return the logit of each record answering ``question`` (float64, one per record).

        Each pair is run on its own (no padding), so a logit depends on its pair only, never on what else is asked or
        was asked before. Logits are remembered in the process and in :attr:`store` (the same questions are asked of
        the same records again and again: every episode of a task, every preview of a clarification policy's
        candidates, every process that certifies the same generated tasks).
        """
        found = {r: self._logits[question, r] for r in records if (question, r) in self._logits}
        missing = [r for r in dict.fromkeys(records) if r not in found]
        if missing and self.store is not None:
            found |= self.store.get(question, missing)
            missing = [r for r in missing if r not in found]
        if missing:
            q = self.tokenizer.encode(question)
            with _blas_limit():
                computed = {r: self._logit(q, r) for r in missing}
            if self.store is not None:
                self.store.put(question, computed)
            found |= computed
        if len(self._logits) + len(found) > _REMEMBERED:
            self._logits.clear()
        self._logits.update(((question, r), v) for r, v in found.items())
        return np.array([found[r] for r in records], dtype=np.float64)

    def _logit(self, question: list[int], record: str) -> float:
        ids, types, _ = self.inputs(question, [record])
        words = self._word_q[ids].astype(np.float32) * self._word_scale[ids][..., None]
        bias = np.zeros((1, 1, 1, ids.shape[1]), dtype=np.float32)
        total = 0.0
        for member in self.members:
            x = _layer_norm(words + member.position[: ids.shape[1]] + member.type[types], *member.norm)
            for matrices, norms in member.layers:
                x = self._layer(x, bias, matrices, norms)
            pooled = np.tanh(x[:, 0] @ member.pooler[0] + member.pooler[1])
            total += float(pooled[0] @ member.head[0] + member.head[1])
        return total / len(self.members)

    def _layer(self, x: np.ndarray, bias: np.ndarray, matrices: Matrices, norms: Matrices) -> np.ndarray:
        batch, width, hidden = x.shape
        size = hidden // self.heads
        flat = x.reshape(batch * width, hidden)

        def heads(name: str) -> np.ndarray:
            w, b = matrices[name]
            return (flat @ w + b).reshape(batch, width, self.heads, size).transpose(0, 2, 1, 3)

        q, k, v = heads("attention.self.query"), heads("attention.self.key"), heads("attention.self.value")
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + bias
        scores -= scores.max(-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(-1, keepdims=True)
        context = scores @ v
        context = context.transpose(0, 2, 1, 3).reshape(batch * width, hidden)
        w, b = matrices["attention.output.dense"]
        flat = _layer_norm(flat + context @ w + b, *norms["attention.output.LayerNorm"])
        w, b = matrices["intermediate.dense"]
        inner = _gelu(flat @ w + b)
        w, b = matrices["output.dense"]
        return _layer_norm(flat + inner @ w + b, *norms["output.LayerNorm"]).reshape(batch, width, hidden)


def blas_threads() -> int | None:
    """The BLAS threads a forward pass may use: ``$ICAE_ENV_BLAS_THREADS``, else 1 in a worker process, else all.

    Each worker of an ``AsyncVectorEnv`` (or any ``multiprocessing`` child) would otherwise start as many BLAS threads
    as there are cores, and on a machine with as many workers as cores they spin against each other: on 2 cores, two
    worker processes computed 12-14 logits a second in all with 2 threads each and 48-49 with 1
    (``benchmarks/blas_workers.py``). A single process keeps every thread (35 a second against 23 with 1).

    Returns:
        The thread limit, or None for BLAS's own (the main process, without the variable).

    Raises:
        ConfigError: naming the variable when it is set to anything but a whole number >= 1.
    """
    value = os.environ.get(THREADS_VARIABLE, "").strip()
    if not value:
        return 1 if multiprocessing.parent_process() is not None else None
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"{THREADS_VARIABLE} must be a whole number >= 1, got {value!r}")
    return int(value)


def _blas_limit() -> AbstractContextManager[object]:
    """Limit BLAS to :func:`blas_threads` for the ``with`` block (nothing to limit: a no-op)."""
    threads = blas_threads()
    if threads is None:
        return nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=threads, user_api="blas")


def cross_encoder_path() -> Path:
    """Return where the weights are read from: ``$ICAE_ENV_CROSS_ENCODER``, else the file shipped with the package."""
    named = os.environ.get(PATH_VARIABLE)
    return Path(named) if named else SHIPPED_PATH


def default_cross_encoder() -> CrossEncoder:
    """Return the cross-encoder at :func:`cross_encoder_path` (see :func:`load_cross_encoder`)."""
    return load_cross_encoder(cross_encoder_path())


def load_cross_encoder(path: str | Path) -> CrossEncoder:
    """Return the cross-encoder of the weights file ``path``, loaded once per process (the last four paths).

    Raises:
        ModelWeightsMissing: when there is no file at ``path``, saying how to fit one.
        TaskValidationError: when the file is unreadable or does not hold a cross-encoder.
    """
    path = Path(path).absolute()
    if not path.is_file():
        raise ModelWeightsMissing(
            f"no cross-encoder weights at {path}: the package ships them at {SHIPPED_PATH} (unset {PATH_VARIABLE} "
            f"to use them); fit others from a source checkout with `python -m benchmarks.router_fit.cross_encoder_fit "
            f'--out {path}` (needs pip install "icae-env[embedding]", about 40 minutes on 2 cores)'
        )
    return _load(path)


@lru_cache(maxsize=4)
def _load(path: Path) -> CrossEncoder:
    return CrossEncoder.load(path)
