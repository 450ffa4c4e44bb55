"""Helpers the house rules build on: natural name order and dependency depth."""

import re

_RUNS = re.compile(r"[0-9]+|[^0-9]+")


def natural_key(name):
    """Sort key: digit runs by their value, other runs by character code, then the name itself."""
    runs = []
    for run in _RUNS.findall(name):
        if run[0] in "0123456789":
            digits = run.lstrip("0")
            runs.append((0, len(digits), digits))
        else:
            runs.append((1, 0, run))
    return (tuple(runs), name)


def is_name(value):
    return isinstance(value, str) and value != ""


def depths(order, graph):
    """Name -> 1 + the deepest of its dependencies (names without dependencies are 1), over an install order."""
    depth = {}
    for name in order:
        depth[name] = 1 + max((depth[dep] for dep in graph[name] if dep in depth), default=0)
    return depth
