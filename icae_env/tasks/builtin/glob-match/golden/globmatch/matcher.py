"""Matching compiled alternatives against paths, segment by segment."""
from functools import lru_cache

from .compiler import split_segments


def split_path(path):
    """Return (segments, is_dir) for a path; None for the empty path, which never matches."""
    if path == "":
        return None
    return split_segments(path.split("/"))


_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_TO_LOWER = str.maketrans(_UPPER, _LOWER)
_TO_UPPER = str.maketrans(_LOWER, _UPPER)


def _fold(text, ignore_case):
    """Case folding is ASCII-only: A-Z and a-z compare equal, every other character only to itself."""
    return text.translate(_TO_LOWER) if ignore_case else text


def _in_class(ch, spec, ignore_case):
    negated, items = spec
    candidates = {ch, ch.translate(_TO_LOWER), ch.translate(_TO_UPPER)} if ignore_case else {ch}
    hit = any(lo <= c <= hi for c in candidates for lo, hi in items)
    return hit != negated


def match_segment(tokens, name, ignore_case=False):
    """Does one pattern segment (tokens) match one path segment (name)?"""
    if name.startswith("."):
        first = tokens[0] if tokens else None
        if first is None or first.kind != "lit" or not first.value.startswith("."):
            return False

    @lru_cache(maxsize=None)
    def walk(ti, ni):
        if ti == len(tokens):
            return ni == len(name)
        token = tokens[ti]
        if token.kind == "star":
            return any(walk(ti + 1, k) for k in range(ni, len(name) + 1))
        if token.kind == "lit":
            end = ni + len(token.value)
            if end > len(name):
                return False
            if _fold(name[ni:end], ignore_case) != _fold(token.value, ignore_case):
                return False
            return walk(ti + 1, end)
        if ni >= len(name):
            return False
        if token.kind == "any":
            return walk(ti + 1, ni + 1)
        # class
        return _in_class(name[ni], token.value, ignore_case) and walk(ti + 1, ni + 1)

    return walk(0, 0)


def match_alternative(alternative, segments, is_dir, ignore_case=False):
    """Does one compiled alternative match an already split path?"""
    if alternative.dir_only and not is_dir:
        return False
    pattern = alternative.segments

    @lru_cache(maxsize=None)
    def walk(pi, si):
        if pi == len(pattern):
            return si == len(segments)
        tokens = pattern[pi]
        if len(tokens) == 1 and tokens[0].kind == "globstar":
            # zero or more whole segments, none of them hidden
            k = si
            while True:
                if walk(pi + 1, k):
                    return True
                if k == len(segments) or segments[k].startswith("."):
                    return False
                k += 1
        if si == len(segments):
            return False
        return match_segment(tokens, segments[si], ignore_case) and walk(pi + 1, si + 1)

    return walk(0, 0)
