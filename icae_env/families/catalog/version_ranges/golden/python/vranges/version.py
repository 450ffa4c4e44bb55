"""Versions: parsing under the house prefix rule, SemVer 2.0.0 precedence,
the house display."""

import re
from functools import cmp_to_key

from .rules import DESCENDING, PREFIX, shown

NUM = r"0|[1-9][0-9]*"
PRE_ID = r"0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*"
PRE = rf"(?:{PRE_ID})(?:\.(?:{PRE_ID}))*"
BUILD = r"[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*"
FULL = re.compile(rf"(?:{PREFIX})({NUM})\.({NUM})\.({NUM})(?:-({PRE}))?(?:\+({BUILD}))?")


class Version:
    """A version: its three numbers, its prerelease identifiers and the text it was written as."""

    def __init__(self, triple, pre=(), text=""):
        self.triple, self.pre, self.text = tuple(triple), tuple(pre), text

    def show(self):
        """The version as reports print it (the house display)."""
        return shown(self.text)

    def plain(self):
        """M.m.p[-pre], the way expanded ranges print a bound."""
        core = ".".join(str(n) for n in self.triple)
        return core + "-" + ".".join(str(i) for i in self.pre) if self.pre else core


def identifiers(text):
    """Dot-separated prerelease identifiers, numeric ones as integers."""
    return tuple(int(i) if i.isdigit() else i for i in text.split(".")) if text is not None else ()


def parse_version(text):
    """The version written as ``text``, or None when it is not a valid version."""
    match = FULL.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return None
    return Version([int(g) for g in match.groups()[:3]], identifiers(match.group(4)), text)


def _cmp(a, b):
    return (a > b) - (a < b)


def _compare_ids(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return _cmp(a, b)
    if isinstance(a, int) or isinstance(b, int):
        return -1 if isinstance(a, int) else 1
    return _cmp(a, b)


def compare(a, b):
    """SemVer 2.0.0 precedence of two versions: -1, 0 or 1 (build metadata ignored)."""
    if a.triple != b.triple:
        return _cmp(a.triple, b.triple)
    if not a.pre or not b.pre:
        return _cmp(not a.pre, not b.pre)
    for x, y in zip(a.pre, b.pre):
        if _compare_ids(x, y):
            return _compare_ids(x, y)
    return _cmp(len(a.pre), len(b.pre))


def in_order(versions):
    """The versions in the house listing order (equal precedence keeps the input order)."""
    return sorted(versions, key=cmp_to_key(compare), reverse=DESCENDING)
