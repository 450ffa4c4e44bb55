"""Dependency maps for ``dependency-order``'s samplers: names from a skin's pool, and maps with a given problem.

Every map is built so that each problem shows whatever the task's decisions are: the names are distinct under
every name rule (only the ``spelling`` scenario writes one name two ways), and a map meant to have both a loop and an
undefined name has them under two different dependencies of its root, so either may be met first.
"""

from __future__ import annotations

import random
import re

__all__ = ["Graph", "Names", "chain", "plain", "problem_map", "shuffled"]

Graph = dict[str, list[str]]


def plain(name: str) -> str:
    """A spelling that every name rule prints the same way: lowercase, single dashes."""
    return re.sub(r"[-_.]+", "-", name.lower())


class Names:
    """Distinct names for one input (distinct under every name rule), drawn from the skin's pool.

    Args:
        pool: The skin's names.
        rng: The sampler's generator.
        simple: Only spellings every name rule prints alike (public inputs).
    """

    def __init__(self, pool: tuple[str, ...], rng: random.Random, simple: bool) -> None:
        self.pool, self.rng, self.simple, self.taken = list(pool), rng, simple, set[str]()

    def _take(self, name: str) -> str | None:
        if plain(name) in self.taken:
            return None
        self.taken.add(plain(name))
        return name

    def _base(self) -> str:
        base = self.rng.choice(self.pool)
        return plain(base) if self.simple else base

    def one(self) -> str:
        """A fresh name: a pool name, often with a number."""
        while True:
            base = self._base()
            name = self._take(base if self.rng.random() < 0.4 else f"{base}{self.rng.randint(1, 40)}")
            if name:
                return name

    def numbered(self, count: int) -> list[str]:
        """Fresh names sharing a stem, with one- and two-digit numbers (natural and character order differ)."""
        base = self._base()
        numbers = [self.rng.randint(2, 9), *self.rng.sample(range(10, 60), max(1, count - 1))]
        return [n for n in (self._take(f"{base}{number}") for number in numbers[:count]) if n]

    def many(self, count: int) -> list[str]:
        """``count`` fresh names in random order (often with a numbered pair among them)."""
        names = self.numbered(self.rng.randint(2, 3)) if not self.simple and self.rng.random() < 0.5 else []
        names += [self.one() for _ in range(max(0, count - len(names)))]
        self.rng.shuffle(names)
        return names[:count]


def chain(names: list[str]) -> Graph:
    """Each name needs the next."""
    return {name: ([names[i + 1]] if i + 1 < len(names) else []) for i, name in enumerate(names)}


def shuffled(rng: random.Random, graph: Graph) -> Graph:
    """The same map with its entries in random order."""
    keys = list(graph)
    rng.shuffle(keys)
    return {key: graph[key] for key in keys}


def dag(rng: random.Random, names: list[str]) -> Graph:
    """A random map without loops in which every name is reachable from ``names[0]``; lists in random order."""
    graph: Graph = {name: [] for name in names}
    for i, name in enumerate(names[1:], start=1):
        graph[names[rng.randrange(i)]].append(name)
    for i, name in enumerate(names):
        later = names[i + 1 :]
        for dep in rng.sample(later, min(len(later), rng.randint(0, 2))):
            if dep not in graph[name]:
                graph[name].append(dep)
    for deps in graph.values():
        rng.shuffle(deps)
    return graph


def _below(graph: Graph, start: str) -> list[str]:
    """The names reachable from ``start`` (itself first), in the order found."""
    found, queue = [start], [start]
    for name in queue:
        for dep in graph.get(name, []):
            if dep not in found and dep in graph:
                found.append(dep)
                queue.append(dep)
    return found


def _insert(rng: random.Random, deps: list[str], name: str) -> None:
    deps.insert(rng.randint(0, len(deps)), name)


def _add_loop(rng: random.Random, graph: Graph, top: str, names: Names) -> None:
    """A loop among the names below ``top``: a path of two or more names closed by an edge back."""
    path, length = [top], rng.randint(3, 4)
    while graph[path[-1]] and len(path) < length:
        path.append(rng.choice(graph[path[-1]]))
    if len(path) == 1:
        extra = names.one()
        graph[top].append(extra)
        graph[extra] = []
        path.append(extra)
    _insert(rng, graph[path[-1]], path[0])


def _add_missing(rng: random.Random, graph: Graph, top: str, names: Names, count: int) -> None:
    below = _below(graph, top)
    for _ in range(count):
        _insert(rng, graph[rng.choice(below)], names.one())


def _respell(rng: random.Random, name: str) -> str:
    """Another spelling of ``name``: other separators, or another case."""
    if re.search(r"[-_.]", name) and rng.random() < 0.5:
        return re.sub(r"[-_.]", "_" if "-" in name or "." in name else rng.choice("-."), name)
    return name.lower() if name.lower() != name else name.capitalize()


def _both(rng: random.Random, names: Names) -> tuple[Graph, str]:
    """A root with two branches: a loop under one, undefined names under the other."""
    root = names.one()
    left, right = dag(rng, names.many(rng.randint(2, 4))), dag(rng, names.many(rng.randint(2, 3)))
    looped, broken = (left, right) if rng.random() < 0.5 else (right, left)
    _add_loop(rng, looped, next(iter(looped)), names)
    _add_missing(rng, broken, next(iter(broken)), names, rng.randint(1, 2))
    graph = {root: [next(iter(left)), next(iter(right))], **left, **right}
    rng.shuffle(graph[root])
    return graph, root


def problem_map(
    rng: random.Random, names: Names, scenario: str, base: tuple[Graph, str] | None = None
) -> tuple[Graph, str]:
    """A map with the problem ``scenario`` names (``clean`` and ``junk`` have none), and its root.

    ``base`` is the map to add the problem to (a random one when None; ``both`` always builds its own).
    """
    if scenario == "both":
        return _both(rng, names)
    if base is None:
        listed = names.many(rng.randint(5, 9))
        base = dag(rng, listed), listed[0]
        if rng.random() < 0.5:  # numbered siblings: natural and character order disagree on them
            family = names.numbered(rng.randint(2, 3))
            base[0][rng.choice(listed)].extend(family)
            base[0].update({name: [] for name in family})
    graph, root = base
    inner = [name for name in _below(graph, root) if graph[name]] or [root]
    if scenario == "missing":
        _add_missing(rng, graph, root, names, rng.randint(3, 4))
    elif scenario == "cycle":
        _add_loop(rng, graph, rng.choice(inner), names)
    elif scenario == "self":
        own = rng.choice(inner)
        _insert(rng, graph[own], own)
    elif scenario == "elsewhere":
        stray, other = names.one(), names.one()
        graph.update({stray: [other], other: [stray]} if rng.random() < 0.5 else {stray: [names.one()]})
    elif scenario == "spelling":
        for _ in range(rng.randint(1, 2)):
            holder = rng.choice([k for k in graph if graph[k]])
            at = rng.randrange(len(graph[holder]))
            graph[holder][at] = _respell(rng, graph[holder][at])
    return graph, root
