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
model only for questions its gate is unsure about: about 30 ms of one core per model and 128-token record, so about
0.2 s on two cores for a question's usual four or five candidates (:meth:`CrossEncoder._forward` runs them together,
on one thread per core; the last layer is computed for ``[CLS]`` only); each (question, record) logit depends on its
pair only, to the last bit, and is remembered, in the process and on disk
(:mod:`icae_env.user_agent.models.logit_store`: once per machine). A loaded ensemble holds its matrices as float32
(about 140 MB).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import zipfile
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from functools import lru_cache
from pathlib import Path

import numpy as np

from icae_env.errors import ConfigError, ModelWeightsMissing, TaskValidationError
from icae_env.user_agent.base import Document, routable_response
from icae_env.user_agent.models.cross_encoder_file import Matrices, Member, check_fields, read_member
from icae_env.user_agent.models.logit_store import LogitStore, file_digest
from icae_env.user_agent.models.wordpiece import WordPiece

__all__ = [
    "CrossEncoder",
    "blas_threads",
    "cross_encoder_path",
    "default_cross_encoder",
    "forward_threads",
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

        Each logit depends on its pair only, never on what else is asked or was asked before: pairs of the same
        length are run together (:meth:`_forward`), unpadded, and every step of the pass treats one pair's rows
        on their own, so a pair's logit is the same, to the last bit, as when it is run alone. Logits are
        remembered in the process and in :attr:`store` (the same questions are asked of the same records again
        and again: every episode of a task, every preview of a clarification policy's candidates, every process
        that certifies the same generated tasks).
        """
        found = {r: self._logits[question, r] for r in records if (question, r) in self._logits}
        missing = [r for r in dict.fromkeys(records) if r not in found]
        if missing and self.store is not None:
            found |= self.store.get(question, missing)
            missing = [r for r in missing if r not in found]
        if missing:
            computed = self._forward(self.tokenizer.encode(question), missing)
            if self.store is not None:
                self.store.put(question, computed)
            found |= computed
        if len(self._logits) + len(found) > _REMEMBERED:
            self._logits.clear()
        self._logits.update(((question, r), v) for r, v in found.items())
        return np.array([found[r] for r in records], dtype=np.float64)

    def _forward(self, question: list[int], records: Sequence[str]) -> dict[str, float]:
        """Return the logit of each of ``records`` with ``question`` (token ids), by record.

        Pairs of the same length (most records fill the 128 tokens) go through a pass together, stacked: each row
        of a matrix product is computed as when its pair runs alone (BLAS computes a row of a product from that
        row alone, for two rows or more), and every other step treats rows or pairs on their own. The passes
        (per model, per share of the pairs) run on :func:`forward_threads` threads, each with one BLAS thread:
        BLAS's own threads wait for each other at every product, which on a loaded machine costs more than the
        work.
        """
        ids, types, mask = self.inputs(question, records)
        lengths = mask.sum(1)
        threads = forward_threads()
        work = []
        for length in dict.fromkeys(lengths.tolist()):
            rows = np.flatnonzero(lengths == length)
            for part in np.array_split(rows, min(threads, len(rows))):
                work += [(part, member, ids[part, :length], types[part, :length]) for member in self.members]
        work.sort(key=lambda unit: -unit[2].size)  # the largest first: the threads finish together
        if threads > 1 and len(work) > 1:
            with _blas_limit(1):
                logits = list(_pool(threads).map(lambda unit: self._pass(*unit[1:]), work))
        else:
            with _blas_limit():
                logits = [self._pass(*unit[1:]) for unit in work]
        by_member: dict[tuple[int, int], float] = {}
        for (part, member, _, _), values in zip(work, logits, strict=True):
            by_member |= {(int(n), id(member)): value for n, value in zip(part, values, strict=True)}
        out: dict[str, float] = {}
        for n, record in enumerate(records):
            total = 0.0
            for member in self.members:  # summed in the members' order, as when each pair ran alone
                total += by_member[n, id(member)]
            out[record] = total / len(self.members)
        return out

    def _pass(self, member: Member, ids: np.ndarray, types: np.ndarray) -> list[float]:
        """Return ``member``'s logit for each row of ``ids`` (pairs of one length, no padding)."""
        batch, width = ids.shape
        words = self._word_q[ids].astype(np.float32) * self._word_scale[ids][..., None]
        x = _layer_norm(words + member.position[:width] + member.type[types], *member.norm)
        flat = x.reshape(batch * width, -1)
        for layer in member.layers[:-1]:
            flat = self._layer(flat, batch, width, layer)
        # The last layer: only [CLS] is read, so only the first two rows of each pair go on past the attention
        # (two, not one: numpy computes a product of one row as a matrix-vector product, in another order).
        cls = self._layer(flat, batch, width, member.layers[-1], keep=2)
        logits = []
        for n in range(batch):
            pooled = np.tanh(cls[n : n + 1, 0] @ member.pooler[0] + member.pooler[1])
            logits.append(float(pooled[0] @ member.head[0] + member.head[1]))
        return logits

    def _layer(
        self, flat: np.ndarray, batch: int, width: int, layer: tuple[Matrices, Matrices], keep: int = 0
    ) -> np.ndarray:
        """Return one layer's output for ``flat`` (``batch`` pairs of ``width`` rows, stacked).

        With ``keep``, only the first ``keep`` rows of each pair are computed past the attention, and the result is
        ``(batch, keep, hidden)``; otherwise it is ``(batch * width, hidden)``.
        """
        matrices, norms = layer
        hidden = flat.shape[1]
        size = hidden // self.heads

        def heads(rows: np.ndarray, name: str) -> np.ndarray:
            w, b = matrices[name]
            return (rows @ w + b).reshape(batch, width, self.heads, size).transpose(0, 2, 1, 3)

        q, k, v = (heads(flat, "attention.self." + name) for name in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size))
        scores -= scores.max(-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3)
        if keep:  # BLAS computes a small product's rows differently with fewer rows, so all queries were asked
            context = context[:, :keep]
            flat = flat.reshape(batch, width, hidden)[:, :keep].reshape(batch * keep, hidden)
        context = context.reshape(-1, hidden)
        w, b = matrices["attention.output.dense"]
        flat = _layer_norm(flat + context @ w + b, *norms["attention.output.LayerNorm"])
        w, b = matrices["intermediate.dense"]
        inner = _gelu(flat @ w + b)
        w, b = matrices["output.dense"]
        flat = _layer_norm(flat + inner @ w + b, *norms["output.LayerNorm"])
        return flat.reshape(batch, keep, hidden) if keep else flat


def blas_threads() -> int | None:
    """The threads a forward pass may use: ``$ICAE_ENV_BLAS_THREADS``, else 1 in a worker process, else all.

    A forward pass with more than one runs its work on that many threads of its own, each with one BLAS thread
    (:func:`forward_threads`); with one, on the calling thread with one BLAS thread.

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


def forward_threads() -> int:
    """The threads a forward pass runs its work on: :func:`blas_threads`, else the cores this process may use."""
    threads = blas_threads()
    if threads is not None:
        return threads
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _pool(threads: int) -> ThreadPoolExecutor:
    """Return this process's pool of ``threads`` threads (a forked child makes its own: threads do not fork)."""
    key = (os.getpid(), threads)
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = ThreadPoolExecutor(threads, thread_name_prefix="cross-encoder")
        return _POOLS[key]


def _blas_limit(threads: int | None = -1) -> AbstractContextManager[object]:
    """Limit BLAS to ``threads`` threads for the ``with`` block (by default :func:`blas_threads`; None: a no-op)."""
    if threads == -1:
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
