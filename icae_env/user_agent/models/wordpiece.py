"""BERT's uncased WordPiece tokenizer in plain Python, as the cross-encoder (:mod:`.cross_encoder`) reads text.

Text is cleaned (NUL, U+FFFD and control characters dropped, whitespace made spaces), lower-cased character by
character, stripped of accents (NFD, combining marks dropped) and split at whitespace, punctuation and CJK
characters; each word is then cut into the vocabulary's pieces, longest match first (``##`` continues a word), or
``[UNK]`` when it cannot be (or is over 100 characters). This is what the ``tokenizers`` library's BERT normaliser,
pre-tokenizer and WordPiece model do for an uncased vocabulary (checked against it in the tests).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from icae_env.errors import ArgumentError

__all__ = ["SPECIAL_TOKENS", "WordPiece"]

#: The special tokens a vocabulary must have: unknown, start of input, separator.
SPECIAL_TOKENS = ("[UNK]", "[CLS]", "[SEP]")


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
        or 0x2A700 <= code <= 0x2B81F
        or 0x2B920 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


class WordPiece:
    """BERT's uncased tokenizer: basic splitting, then greedy longest-match WordPiece.

    Args:
        vocabulary: The tokens, their ids being their positions.

    Raises:
        ArgumentError: if the vocabulary lacks ``[UNK]``, ``[CLS]`` or ``[SEP]``.
    """

    def __init__(self, vocabulary: Sequence[str]) -> None:
        self.ids = {token: i for i, token in enumerate(vocabulary)}
        missing = [token for token in SPECIAL_TOKENS if token not in self.ids]
        if missing:
            raise ArgumentError(f"the vocabulary lacks {', '.join(missing)}")
        self.unk, self.cls, self.sep = (self.ids[token] for token in SPECIAL_TOKENS)
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
        text = unicodedata.normalize("NFD", "".join(c.lower() for c in chars))  # per character: no final sigma
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
