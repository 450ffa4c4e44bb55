"""Ranges: unions of comparator sets, x-ranges, caret, tilde and hyphen
spans; matching and expansion."""

import re

from .rules import HYPHEN_PREFIX, LENIENT_OPERATORS, PREFIX, caret_upper, prerelease_allowed, tilde_upper
from .version import BUILD, NUM, PRE, Version, compare, identifiers

WILD = rf"{NUM}|x|X|\*"
PARTIAL = re.compile(rf"(?:{PREFIX})({WILD})(?:\.({WILD})(?:\.({WILD})(?:-({PRE}))?(?:\+({BUILD}))?)?)?")
OPERATOR = re.compile(r"(<=|>=|<|>|=|\^|~)?(.*)", re.S)
SPACED_OPERATOR = re.compile(r"(<=|>=|<|>|=|\^|~)[ \t]+")
BLANKS = re.compile(r"[ \t]+")
LOWEST = (0,)


class RangeError(Exception):
    """A range that does not parse."""


class Partial:
    """A partial version: up to three numbers (None for a wildcard) and prerelease identifiers."""

    def __init__(self, parts, pre):
        self.parts, self.pre = parts, pre
        self.given = sum(p is not None for p in parts)


def parse_partial(text):
    match = PARTIAL.fullmatch(text)
    if match is None:
        return None
    parts = [None if p in (None, "x", "X", "*") else int(p) for p in match.groups()[:3]]
    if any(a is None and b is not None for a, b in zip(parts, parts[1:])):
        return None
    partial = Partial(parts, identifiers(match.group(4)))
    has_tail = match.group(4) is not None or match.group(5) is not None
    return None if has_tail and partial.given != 3 else partial


def below(triple):
    """Lower than every version of ``triple``, its prereleases included."""
    return ("<", Version(triple, LOWEST))


NOTHING = below((0, 0, 0))
TESTS = {
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
    "=": lambda c: c == 0,
}


def desugar(op, partial):
    """One operator and partial version as primitive comparators."""
    major, minor, patch = partial.parts
    if partial.given == 3:
        exact = Version(partial.parts, partial.pre)
        if op in ("", "="):
            return [("=", exact)]
        if op == "~":
            return [(">=", exact), below(tilde_upper(major, minor, patch, 3))]
        if op == "^":
            return [(">=", exact), below(caret_upper(major, minor, patch, 3))]
        return [(op, exact)]
    if partial.given == 0:
        return [NOTHING] if op in ("<", ">") else []
    low = (major, minor or 0, 0)
    top = (major + 1, 0, 0) if partial.given == 1 else (major, minor + 1, 0)
    if op == "~":
        return [(">=", Version(low)), below(tilde_upper(major, minor or 0, 0, partial.given))]
    if op == "^":
        return [(">=", Version(low)), below(caret_upper(major, minor or 0, 0, partial.given))]
    if op == ">":
        return [(">=", Version(top))]
    if op == ">=":
        return [(">=", Version(low))]
    if op == "<":
        return [below(low)]
    if op == "<=":
        return [below(top)]
    return [(">=", Version(low)), below(top)]


class Alternative:
    """One comparator set: every comparator must hold; ``written`` are the prerelease versions it names."""

    def __init__(self, comparators, written):
        self.comparators, self.written = comparators, written

    def admits(self, version):
        if not all(TESTS[op](compare(version, bound)) for op, bound in self.comparators):
            return False
        return not version.pre or prerelease_allowed(version, self.written)

    def expanded(self):
        return " ".join(op + bound.plain() for op, bound in self.comparators) or "*"


def hyphen(left_text, right_text):
    left, right = parse_partial(left_text), parse_partial(right_text)
    if left is None or right is None:
        return None
    comparators, written = [], []
    if left.given:
        start = Version([p or 0 for p in left.parts], left.pre)
        comparators.append((">=", start))
        written += [start] if start.pre else []
    if right.given == 3:
        end = Version(right.parts, right.pre)
        comparators.append(("<=", end))
        written += [end] if end.pre else []
    elif right.given and HYPHEN_PREFIX:
        comparators += desugar("<=", right)
    elif right.given:
        comparators.append(("<=", Version([p or 0 for p in right.parts])))
    return Alternative(comparators, written)


def parse_alternative(text):
    words = BLANKS.split(text)
    if len(words) == 3 and words[1] == "-":
        return hyphen(words[0], words[2])
    comparators, written = [], []
    for word in words:
        op, rest = OPERATOR.fullmatch(word).groups()
        partial = parse_partial(rest)
        if partial is None:
            return None
        comparators += desugar(op or "", partial)
        written += [Version(partial.parts, partial.pre)] if partial.pre else []
    return Alternative(comparators, written)


def parse_range(text):
    """The alternatives of a range (raises RangeError when it does not parse)."""
    if BLANKS.fullmatch(text) or text == "":
        return [Alternative([], [])]
    alternatives = []
    for part in text.split("||"):
        part = part.strip(" \t")
        if LENIENT_OPERATORS:
            part = SPACED_OPERATOR.sub(r"\1", part)
        alternative = parse_alternative(part) if part else None
        if alternative is None:
            raise RangeError(text)
        alternatives.append(alternative)
    return alternatives


def admits(alternatives, version):
    return any(a.admits(version) for a in alternatives)
