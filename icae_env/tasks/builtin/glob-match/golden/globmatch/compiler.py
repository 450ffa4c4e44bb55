"""Syntax tree -> alternatives -> segments of tokens (the compiled form).

A compiled alternative is an Alternative(segments, dir_only); a segment is a tuple of tokens:
  Token("lit", text) | Token("any") | Token("star") | Token("globstar") | Token("class", (negated, items))
An empty segment (from a leading '/') is the empty tuple.
"""
from dataclasses import dataclass

from .errors import TooManyAlternatives
from .parser import parse

MAX_ALTERNATIVES = 256


@dataclass(frozen=True)
class Token:
    kind: str
    value: object = None


@dataclass(frozen=True)
class Alternative:
    segments: tuple
    dir_only: bool


def _count(nodes):
    total = 1
    for node in nodes:
        if node[0] == "brace":
            total *= sum(_count(alt) for alt in node[1])
            if total > MAX_ALTERNATIVES:
                return total
    return total


def _expand(nodes):
    """Every flat node list the tree stands for, leftmost brace varying slowest."""
    results = [[]]
    for node in nodes:
        if node[0] == "brace":
            options = [flat for alt in node[1] for flat in _expand(alt)]
            results = [done + option for done in results for option in options]
        else:
            results = [done + [node] for done in results]
    return results


def _segment(nodes):
    """Turn the flat nodes of one segment into tokens: literal runs and star runs merged."""
    tokens = []
    stars = 0
    for node in nodes:
        kind = node[0]
        if kind == "star":
            stars += 1
            if tokens and tokens[-1].kind == "star":
                continue
            tokens.append(Token("star"))
        elif kind == "lit":
            if tokens and tokens[-1].kind == "lit":
                tokens[-1] = Token("lit", tokens[-1].value + node[1])
            else:
                tokens.append(Token("lit", node[1]))
        elif kind == "any":
            tokens.append(Token("any"))
        else:  # class
            tokens.append(Token("class", (node[1], tuple(node[2]))))
    if len(tokens) == 1 and tokens[0].kind == "star" and stars >= 2:
        return (Token("globstar"),)
    return tuple(tokens)


def split_segments(parts):
    """Shared path/pattern normalisation: returns (segments, dir_only).

    Repeated separators collapse, a leading separator leaves an empty first segment, a trailing
    separator (when there is something before it) is dropped and marks the pattern/path as a directory.
    """
    dir_only = False
    if len(parts) > 1 and len(parts[-1]) == 0:
        dir_only = True
        parts = parts[:-1]
    return [parts[0]] + [p for p in parts[1:] if len(p)], dir_only


def compile_pattern(pattern):
    """Parse, expand and segment ``pattern``; returns a list of Alternative in expansion order."""
    tree = parse(pattern)
    if _count(tree) > MAX_ALTERNATIVES:
        raise TooManyAlternatives(MAX_ALTERNATIVES)
    alternatives = []
    for flat in _expand(tree):
        parts = [[]]
        for node in flat:
            if node[0] == "sep":
                parts.append([])
            else:
                parts[-1].append(node)
        segments, dir_only = split_segments(parts)
        alternatives.append(Alternative(tuple(_segment(s) for s in segments), dir_only))
    return alternatives
