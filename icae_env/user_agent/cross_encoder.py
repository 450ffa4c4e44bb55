"""A cross-encoder in numpy: reads a question and a record together and scores "this record answers the question".

The default router's gate (:mod:`icae_env.user_agent.distilled`) sees a question and a record only through shared
words and static-encoder cosines, so some paraphrases in other words and some questions on another subject in the
record's words look alike to it. A model that reads both texts together separates more of them
(``benchmarks/cross_encoder_probe.py``). This is all-MiniLM-L6-v2 (six BERT layers, 384 wide) fine-tuned as a
cross-encoder on the built-in tasks' labelled questions (:mod:`icae_env.user_agent.cross_encoder_fit`), run here
with numpy only: a WordPiece tokenizer (lower-cased, accents stripped, split on whitespace, punctuation and CJK
characters, as BERT's uncased one) and the encoder's forward pass (GELU in its tanh form). The input is
``[CLS] question [SEP] record [SEP]`` cut at 128 tokens (the record is cut first; :func:`record_text` says what of
a record is read); the output is one logit.

The weights (int8 matrices with one scale per row, about 21 MB) are not shipped with the package: they are fitted
once with ``python -m icae_env.user_agent.cross_encoder_fit`` (needs the ``embedding`` extra; about 20 minutes on 2
cores) into :func:`cross_encoder_path` (``$ICAE_ENV_CROSS_ENCODER``, else ``~/.cache/icae-env/cross_encoder.npz``).
The opt-in ``cascade`` router (:mod:`icae_env.user_agent.cascade`) calls the model only for questions its gate is
unsure about: it costs tens of milliseconds per question on a CPU.
"""

from __future__ import annotations

import os
import unicodedata
import zipfile
import zlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from icae_env.errors import ModelWeightsMissing, TaskValidationError
from icae_env.user_agent.base import Document, routable_response

__all__ = ["CrossEncoder", "WordPiece", "cross_encoder_path", "default_cross_encoder", "record_text"]

#: The environment variable naming the weights file.
PATH_VARIABLE = "ICAE_ENV_CROSS_ENCODER"
#: How much of a record's response the model reads (after its triggers).
RESPONSE_CHARS = 700
_LAYER_MATRICES = (
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "intermediate.dense",
    "output.dense",
)
_NORMS = ("attention.output.LayerNorm", "output.LayerNorm")


def record_text(doc: Document) -> str:
    """Return the text of ``doc`` that the cross-encoder reads after the question: triggers, then the response."""
    return "; ".join(doc.triggers) + " || " + routable_response(doc)[:RESPONSE_CHARS]


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


class WordPiece:
    """BERT's uncased tokenizer: basic splitting, then greedy longest-match WordPiece.

    Args:
        vocabulary: The tokens, their ids being their positions.
    """

    def __init__(self, vocabulary: Sequence[str]) -> None:
        self.ids = {token: i for i, token in enumerate(vocabulary)}
        self.unk, self.cls, self.sep = self.ids["[UNK]"], self.ids["[CLS]"], self.ids["[SEP]"]
        self._cache: dict[str, list[int]] = {}

    @staticmethod
    def words(text: str) -> list[str]:
        """Return the words of ``text``: cleaned, lower-cased, accents stripped, split at punctuation and CJK."""
        chars = []
        for char in text:
            code = ord(char)
            if code == 0 or code == 0xFFFD or (unicodedata.category(char).startswith("C") and char not in "\t\n\r"):
                continue
            if char.isspace():
                chars.append(" ")
            elif _is_cjk(code) or _is_punctuation(char):
                chars.append(f" {char} ")
            else:
                chars.append(char)
        text = unicodedata.normalize("NFD", "".join(chars).lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        return [w for part in text.split() for w in _split_punctuation(part)]

    def _pieces(self, word: str) -> list[int]:
        if word in self._cache:
            return self._cache[word]
        pieces: list[int] = []
        start = 0
        while start < len(word) and len(word) <= 100:
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.ids:
                    pieces.append(self.ids[piece])
                    break
                end -= 1
            if end == start:
                pieces = []
                break
            start = end
        pieces = pieces or [self.unk]
        if len(self._cache) < 100_000:
            self._cache[word] = pieces
        return pieces

    def encode(self, text: str) -> list[int]:
        """Return the token ids of ``text`` (no special tokens)."""
        return [i for word in self.words(text) for i in self._pieces(word)]


def _split_punctuation(word: str) -> list[str]:
    """Split the punctuation that NFD normalisation exposed (a rare case) off ``word``."""
    if not any(_is_punctuation(c) for c in word):
        return [word]
    out, current = [], ""
    for char in word:
        if _is_punctuation(char):
            out += [current, char] if current else [char]
            current = ""
        else:
            current += char
    return out + [current] if current else out


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    return centred / np.sqrt((centred * centred).mean(-1, keepdims=True) + 1e-12) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh form, in place (within 5e-4 of the erf form that BERT uses; seven times faster here)."""
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
    """The fine-tuned cross-encoder (module docstring), from a weights file.

    Args:
        fields: The arrays of the weights file (:meth:`load` reads and checks them).
    """

    def __init__(self, fields: dict[str, np.ndarray]) -> None:
        self.tokenizer = WordPiece(str(fields["vocab"]).split("\n"))
        self._records: dict[str, list[int]] = {}
        self.heads, self.max_length = (int(v) for v in fields["config"])
        self._word_q, self._word_scale = (
            fields["embeddings.word_embeddings.weight.q"],
            fields["embeddings.word_embeddings.weight.scale"],
        )
        self._position = _matrix(fields, "embeddings.position_embeddings.weight")
        self._type = _matrix(fields, "embeddings.token_type_embeddings.weight")
        self._norm = (fields["embeddings.LayerNorm.weight"], fields["embeddings.LayerNorm.bias"])
        self.layers = []
        for n in range(sum(k.endswith("attention.self.query.weight.q") for k in fields)):
            prefix = f"encoder.layer.{n}."
            matrices = {m: (_matrix(fields, prefix + m + ".weight").T.copy(), fields[prefix + m + ".bias"])
                        for m in _LAYER_MATRICES}  # fmt: skip
            norms = {m: (fields[prefix + m + ".weight"], fields[prefix + m + ".bias"]) for m in _NORMS}
            self.layers.append((matrices, norms))
        self._pooler = (_matrix(fields, "pooler.dense.weight").T.copy(), fields["pooler.dense.bias"])
        self._head = (_matrix(fields, "classifier.weight")[0], float(fields["classifier.bias"][0]))

    @classmethod
    def load(cls, path: str | Path) -> CrossEncoder:
        """Read a weights file written by :func:`icae_env.user_agent.cross_encoder_fit.export`.

        Raises:
            TaskValidationError: naming the file and field when it is unreadable or an array is missing.
        """
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                fields = {name: data[name] for name in data.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as error:
            raise TaskValidationError(str(path), "-", f"not a readable cross-encoder file ({error})") from None
        for name in ("vocab", "config", "embeddings.word_embeddings.weight.q", "classifier.weight.q"):
            if name not in fields:
                raise TaskValidationError(str(path), name, "missing from the cross-encoder file")
        try:
            return cls(fields)
        except KeyError as missing:
            raise TaskValidationError(str(path), str(missing.args[0]), "missing from the cross-encoder file") from None

    def inputs(self, question: str, records: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return token ids, token types and the padding mask of ``[CLS] question [SEP] record [SEP]`` per record."""
        q = self.tokenizer.encode(question)[: self.max_length // 2 - 2]
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
        """Return the logit of each record answering ``question`` (float64, one per record)."""
        if not records:
            return np.zeros(0)
        ids, types, mask = self.inputs(question, records)
        words = self._word_q[ids].astype(np.float32) * self._word_scale[ids][..., None]
        x = _layer_norm(words + self._position[: ids.shape[1]] + self._type[types], *self._norm)
        bias = np.where(mask, 0.0, -1e4).astype(np.float32)[:, None, None, :]
        for matrices, norms in self.layers:
            x = self._layer(x, bias, matrices, norms)
        pooled = np.tanh(x[:, 0] @ self._pooler[0] + self._pooler[1])
        return (pooled @ self._head[0] + self._head[1]).astype(np.float64)

    def _layer(self, x: np.ndarray, bias: np.ndarray, matrices: dict, norms: dict) -> np.ndarray:
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


def _matrix(fields: dict[str, np.ndarray], name: str) -> np.ndarray:
    """Return the float32 matrix ``name`` (rows = outputs) of int8 values and per-row scales, or stored as is."""
    if name in fields:
        return fields[name].astype(np.float32)
    return fields[name + ".q"].astype(np.float32) * fields[name + ".scale"][:, None]


def cross_encoder_path() -> Path:
    """Return where the fitted weights are read from: ``$ICAE_ENV_CROSS_ENCODER``, else the user's cache."""
    named = os.environ.get(PATH_VARIABLE)
    return Path(named) if named else Path.home() / ".cache" / "icae-env" / "cross_encoder.npz"


def default_cross_encoder() -> CrossEncoder:
    """Return the cross-encoder at :func:`cross_encoder_path` (loaded once per process and path).

    Raises:
        ModelWeightsMissing: when no weights file is there, saying how to fit one.
        TaskValidationError: when the file is unreadable or incomplete.
    """
    return _load(cross_encoder_path())


@lru_cache(maxsize=2)
def _load(path: Path) -> CrossEncoder:
    if not path.is_file():
        raise ModelWeightsMissing(
            f"no cross-encoder weights at {path}: fit them with `python -m icae_env.user_agent.cross_encoder_fit "
            f'--out {path}` (needs pip install "icae-env[embedding]", about 20 minutes on 2 cores) or set '
            f"{PATH_VARIABLE} to a weights file"
        )
    return CrossEncoder.load(path)
