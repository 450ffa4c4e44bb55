"""Text normalisation for the lexical router: tokens, a light stemmer, programming synonyms, char n-grams."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = [
    "STOPWORDS",
    "about_tests",
    "char_ngrams",
    "concepts",
    "content_words",
    "lead_sentence",
    "stem",
    "tokens",
    "tokens_and_char_ngrams",
    "with_bigrams",
]

STOPWORDS = frozenset(
    """a an the is are was were be been being am do does did doing done have has had having i me my we our you your
    it its this that these those there here what which who whom whose when where why how can could should would will
    shall may might must to of in on at by for with about as into from than then so if or and but not no nor
    any some all each every both either neither such very just also only too please tell explain know want need
    get got give let make s t d ll re ve m o y ok okay hi hello hey thanks thank us them they he she his her its
    one ones thing things way ways kind sort like exactly really actually specifically basically mean means meant
    supposed expected going""".split()
)

# Concept groups of common programming terms. A token also emits its group's concept token, so paraphrases meet
# without erasing the words themselves. Groups are generic; they are not tuned to particular tasks.
_SYNONYM_GROUPS = (
    "output print stdout emit display write result results outputs printed prints return returns returned",
    "input stdin request payload argument arguments arg args param params parameter parameters inputs field fields",
    "error errors exception exceptions fail failure failures invalid malformed bad wrong reject rejected "
    "rejects broken corrupt",
    "empty blank missing absent null none nil undefined omitted omit",
    "function functions method methods api signature signatures interface interfaces endpoint",
    "format formats formatted formatting shape structure layout representation",
    "sort sorted sorting order ordering ordered rank ranking",
    "duplicate duplicates duplicated repeat repeated dedupe dedup twice",
    "cycle cycles cyclic circular loop loops infinite recursion recursive",
    "test tests testing harness testcase testcases",
    "directory directories dir dirs folder folders",
    "config configuration configurations setting settings option options",
    "integer integers int ints number numbers numeric digit digits",
    "string strings str text",
    "array arrays list lists",
    "object objects dict dictionary map mapping hash",
    "time timestamp timestamps clock date dates datetime",
    "cache caching cached memo memoize memoization memoized precomputed",
    "large big huge long massive",
    "limit limits max maximum cap capped bound bounds ceiling",
    "minimum min floor lower",
    "default defaults",
    "handle handled handling handles deal treat treated behave behavior behaviour happen happens",
    "separate separation split decouple decoupled isolate modular module modules layer layers",
    "organize organise organization structure architecture",
    "run runs running execute executes invoke invoked call calls called launch",
    "dependency dependencies import imports require requires include includes",
    "case sensitive insensitive uppercase lowercase capital capitalization",
    "whitespace space spaces trim trimmed trailing leading indentation",
    "newline newlines linebreak line lines",
    "valid validate validation validated check checks checking verify",
    "count counts number total tally",
    "name names naming named called",
    "file files path paths filename filenames",
)
_CONCEPT: dict[str, str] = {}
for _group in _SYNONYM_GROUPS:
    _words = _group.split()
    for _word in _words:
        _CONCEPT.setdefault(_word, "~" + _words[0])

_SPLIT_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])")
_NON_WORD = re.compile(r"[^0-9a-z]+")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Return a light Porter-style stem (plural, -ing, -ed, -ly and common derivational suffixes)."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, repl in (
        ("ational", "ate"),
        ("ization", "ize"),
        ("fulness", "ful"),
        ("iveness", "ive"),
        ("ousness", "ous"),
        ("ations", "ate"),
        ("ation", "ate"),
        ("ments", ""),
        ("ment", ""),
        ("ness", ""),
        ("ities", ""),
        ("ity", ""),
        ("ably", "able"),
        ("ibly", "ible"),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + repl
            break
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        word = word[:-1]
    for suffix in ("ing", "ed", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def _raw_words(text: str) -> list[str]:
    return [w for w in _NON_WORD.split(_SPLIT_CAMEL.sub(" ", text).lower()) if w]


def concepts(words: list[str]) -> list[str]:
    """Return the concept tokens (``~output`` ...) that ``words`` belong to."""
    return [_CONCEPT[w] for w in words if w in _CONCEPT]


def _tokens(raw: list[str]) -> list[str]:
    words = [w for w in raw if w not in STOPWORDS]
    return [stem(w) for w in words] + concepts(words)


@lru_cache(maxsize=65536)
def _word_ngrams(word: str, sizes: tuple[int, ...]) -> tuple[str, ...]:
    padded = f" {word} "
    return tuple(padded[i : i + size] for size in sizes for i in range(max(1, len(padded) - size + 1)))


def _char_ngrams(raw: list[str], sizes: tuple[int, ...]) -> list[str]:
    grams: list[str] = []
    for word in raw:
        if word not in STOPWORDS:
            grams.extend(_word_ngrams(word, sizes))
    return grams


def tokens(text: str) -> list[str]:
    """Return stemmed content tokens of ``text`` plus their concept tokens."""
    return _tokens(_raw_words(text))


def with_bigrams(words: list[str]) -> list[str]:
    """Return ``words`` followed by the bigrams (``a_b``) of their adjacent stems (concept tokens left out)."""
    stems = [w for w in words if not w.startswith("~")]
    return words + [f"{a}_{b}" for a, b in zip(stems, stems[1:], strict=False)]


def char_ngrams(text: str, sizes: tuple[int, ...] = (3, 4)) -> list[str]:
    """Return character n-grams of the content words of ``text``, each word padded with spaces."""
    return _char_ngrams(_raw_words(text), tuple(sizes))


def tokens_and_char_ngrams(text: str, sizes: tuple[int, ...] = (3, 4)) -> tuple[list[str], list[str]]:
    """Return ``(tokens(text), char_ngrams(text, sizes))``, splitting ``text`` into words once."""
    raw = _raw_words(text)
    return _tokens(raw), _char_ngrams(raw, tuple(sizes))


def content_words(text: str) -> tuple[tuple[str, str], ...]:
    """Return the distinct content words of ``text`` as ``(stem, concept)`` pairs, in first-seen order.

    ``concept`` is the word's concept token (``~output`` ...) or ``""`` for a word outside every concept group.
    """
    seen: dict[str, str] = {}
    for word in _raw_words(text):
        if word not in STOPWORDS:
            seen.setdefault(stem(word), _CONCEPT.get(word, ""))
    return tuple(seen.items())


_TEST_WORDS = frozenset({"~test", "case", "exampl", "sampl", "featur", "fixtur", "expect"})
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+|\n+")


def lead_sentence(text: str) -> str:
    """Return the first non-blank sentence of ``text``."""
    return next((s for s in _SENTENCE.split(text) if s.strip()), "")


def about_tests(words: Iterable[str]) -> bool:
    """Return whether a question with these tokens asks about tests, cases or examples."""
    return not _TEST_WORDS.isdisjoint(words)
