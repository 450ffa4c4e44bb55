"""The Python golden of ``version-ranges``: a fixed core, and one building block per (decision, value).

The JavaScript golden (:mod:`.version_ranges_golden_js`) is the same program line for line; the two must print the
same bytes on every input the samplers produce.
"""

from __future__ import annotations

CORE = {
    "vranges/__init__.py": r'''"""Version ranges: sort, match, resolve, expand and compare semantic versions."""

from .app import handle

__all__ = ["handle"]
''',
    "vranges/version.py": r'''"""Versions: parsing under the house prefix rule, SemVer 2.0.0 precedence,
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
''',
    "vranges/ranges.py": r'''"""Ranges: unions of comparator sets, x-ranges, caret, tilde and hyphen
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
TESTS = {"<": lambda c: c < 0, "<=": lambda c: c <= 0, ">": lambda c: c > 0, ">=": lambda c: c >= 0,
         "=": lambda c: c == 0}


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
''',
    "vranges/app.py": r'''"""One request in, one report out."""

from .ranges import RangeError, admits, parse_range
from .rules import DUPLICATES, INVALID, NO_MATCH, PICK_LOWEST
from .version import compare, in_order, parse_version


class RequestError(Exception):
    """A request the tool refuses; the message is the text of the error line."""


def text_field(data, name):
    value = data.get(name)
    if not isinstance(value, str):
        raise RequestError(f"missing field: {name}")
    return value


def texts_field(data, name):
    value = data.get(name)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RequestError(f"missing field: {name}")
    return value


def checked_range(text):
    try:
        return parse_range(text)
    except RangeError:
        raise RequestError(f"invalid range: {text}") from None


class Versions:
    """The valid versions of a list, and what the house does with its invalid entries."""

    def __init__(self, texts):
        parsed = [(text, parse_version(text)) for text in texts]
        self.valid = distinct([v for _, v in parsed if v is not None])
        self.invalid = [text for text, v in parsed if v is None]
        if self.invalid and INVALID == "fail":
            raise RequestError(f"invalid version: {self.invalid[0]}")

    def footer(self):
        return ["invalid: " + ", ".join(self.invalid)] if self.invalid and INVALID == "report" else []


def same(a, b):
    return a.text == b.text if DUPLICATES == "text" else compare(a, b) == 0


def distinct(versions):
    """The versions without repeats, under the house rule (the first one written is kept)."""
    if DUPLICATES == "keep":
        return versions
    kept = []
    for version in versions:
        if not any(same(version, other) for other in kept):
            kept.append(version)
    return kept


def pick(candidates):
    best = None
    for version in candidates:
        if best is None or compare(version, best) == (-1 if PICK_LOWEST else 1):
            best = version
    return best


def sort_report(data):
    versions = Versions(texts_field(data, "versions"))
    return [v.show() for v in in_order(versions.valid)] + versions.footer()


def match_report(data):
    alternatives = checked_range(text_field(data, "range"))
    versions = Versions(texts_field(data, "versions"))
    hits = [v for v in versions.valid if admits(alternatives, v)]
    summary = f"matched: {len(hits)} of {len(versions.valid)}"
    return [v.show() for v in in_order(hits)] + [summary] + versions.footer()


def resolve_report(data):
    ranges = [(text, checked_range(text)) for text in texts_field(data, "ranges")]
    versions = Versions(texts_field(data, "versions"))
    lines = []
    for text, alternatives in ranges:
        best = pick(v for v in versions.valid if admits(alternatives, v))
        lines.append(f"{text} -> {best.show() if best is not None else NO_MATCH}")
    return lines + versions.footer()


def expand_report(data):
    return [a.expanded() for a in checked_range(text_field(data, "range"))]


def _is_pair(value):
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)


def compare_report(data):
    pairs = data.get("pairs")
    if not isinstance(pairs, list) or not all(_is_pair(p) for p in pairs):
        raise RequestError("missing field: pairs")
    versions = Versions([text for pair in pairs for text in pair])
    lines = []
    for a, b in ([parse_version(t) for t in pair] for pair in pairs):
        if a is not None and b is not None:
            lines.append(f"{a.show()} {'<=>'[compare(a, b) + 1]} {b.show()}")
    return lines + versions.footer()


OPS = {"sort": sort_report, "match": match_report, "resolve": resolve_report, "expand": expand_report,
       "compare": compare_report}
WITH_RANGE = ("match", "expand")


def handle(data):
    """The whole output of one request (a JSON object with op, package and the op's fields)."""
    if not isinstance(data, dict):
        return "error: malformed request\n"
    op = data.get("op")
    if not isinstance(op, str):
        return "error: missing field: op\n"
    if op not in OPS:
        return f"error: unsupported op: {op}\n"
    try:
        package = text_field(data, "package")
        lines = OPS[op](data)
    except RequestError as exc:
        return f"error: {exc}\n"
    title = f"{package} {data['range']}" if op in WITH_RANGE else package
    return "\n".join([f"== {title} ==", *lines]) + "\n"
''',
}

BLOCKS = {
    "order": {"ascending": "DESCENDING = False\n", "descending": "DESCENDING = True\n"},
    "display": {
        "as_written": "def shown(text):\n    return text\n",
        "canonical": 'def shown(text):\n    return text.lstrip("vV").split("+")[0]\n',
    },
    "invalid": {"skip": 'INVALID = "skip"\n', "report": 'INVALID = "report"\n', "fail": 'INVALID = "fail"\n'},
    "prefix": {"lower_v": 'PREFIX = "v?"\n', "any_v": 'PREFIX = "[vV]?"\n', "strict": 'PREFIX = ""\n'},
    "prereleases": {
        "same_tuple": (
            "def prerelease_allowed(version, written):\n    return any(w.triple == version.triple for w in written)\n"
        ),
        "include": "def prerelease_allowed(version, written):\n    return True\n",
        "never": "def prerelease_allowed(version, written):\n    return False\n",
    },
    "duplicates": {
        "keep": 'DUPLICATES = "keep"\n',
        "text": 'DUPLICATES = "text"\n',
        "precedence": 'DUPLICATES = "precedence"\n',
    },
    "caret_zero": {
        "leftmost": (
            "def caret_upper(major, minor, patch, given):\n"
            "    if major > 0 or given == 1:\n"
            "        return (major + 1, 0, 0)\n"
            "    if minor > 0 or given == 2:\n"
            "        return (0, minor + 1, 0)\n"
            "    return (0, 0, patch + 1)\n"
        ),
        "major": "def caret_upper(major, minor, patch, given):\n    return (major + 1, 0, 0)\n",
        "zero_minor": (
            "def caret_upper(major, minor, patch, given):\n"
            "    return (major + 1, 0, 0) if major > 0 or given == 1 else (0, minor + 1, 0)\n"
        ),
    },
    "tilde": {
        "patch_level": (
            "def tilde_upper(major, minor, patch, given):\n"
            "    return (major + 1, 0, 0) if given == 1 else (major, minor + 1, 0)\n"
        ),
        "pessimistic": (
            "def tilde_upper(major, minor, patch, given):\n"
            "    return (major, minor + 1, 0) if given == 3 else (major + 1, 0, 0)\n"
        ),
    },
    "hyphen": {"prefix": "HYPHEN_PREFIX = True\n", "zero_fill": "HYPHEN_PREFIX = False\n"},
    "operator_spacing": {"strict": "LENIENT_OPERATORS = False\n", "lenient": "LENIENT_OPERATORS = True\n"},
    "resolve": {"highest": "PICK_LOWEST = False\n", "lowest": "PICK_LOWEST = True\n"},
    "no_match": {"none": 'NO_MATCH = "none"\n', "null": 'NO_MATCH = "null"\n', "not_found": 'NO_MATCH = "not found"\n'},
}

#: What a decision is when the task does not have it (its features are absent): any value works; the first.
FALLBACK_BLOCKS = {name: next(iter(values.values())) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str]) -> str:
    """``vranges/rules.py``: the chosen block of every decision (absent decisions take a fixed one)."""
    parts = ['"""The house rules of this matcher (one block per product decision)."""\n']
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS[name])
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``."""
    return {**CORE, "vranges/rules.py": rules_module(values)}
