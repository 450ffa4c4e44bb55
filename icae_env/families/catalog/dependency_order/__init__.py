"""``dependency-order``: install orders over a map of packages and their direct dependencies.

Generalises the built-in ``dep-resolver`` task (a depth-first post-order with a name tie-break, cycle paths, missing
packages, a cache of resolved sub-trees): its decisions (sibling order, which problem wins, where a loop is printed
from, what counts as the same name ...) are drawn per task. Ops: ``order``, ``stages``, ``check`` (core),
``install``, ``why`` and ``impact``. Texts and decisions in ``family.yaml``; goldens in
``golden/`` and ``blocks/`` (Python and JavaScript, byte-identical outputs);
maps in ``inputs.py``; samplers here.
"""

from __future__ import annotations

import json
import random
from typing import Any

from icae_env.families.catalog.dependency_order.inputs import Graph, Names, chain, dag, problem_map, shuffled
from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["DependencyOrder"]

OPS = {"feature1_order": "order", "feature2_stages": "stages", "feature3_check": "check",
       "feature4_install": "install", "feature5_why": "why", "feature6_impact": "impact"}  # fmt: skip
#: What is wrong with a typical map, and how often (``clean``: nothing).
TYPICAL = {"clean": 3, "missing": 3, "cycle": 3, "both": 4, "spelling": 2, "self": 1, "elsewhere": 1, "junk": 1}
#: Boundary inputs: edge shapes, and the rarer problems.
BOUNDARY = {"wide": 2, "long": 2, "diamond": 2, "self": 2, "elsewhere": 2, "both": 2, "junk": 2}
SHAPES = ("wide", "long", "diamond")


def _pick(rng: random.Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), list(weights.values()))[0]


class DependencyOrder(Family):
    """Install orders over a dependency map; texts and decisions in ``family.yaml``."""

    def constants(self, plan: Plan, language: str) -> dict[str, Any]:
        """``ITEM``: the skin's word for a package (the golden's messages use it)."""
        return {"ITEM": plan.word("item")}

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        names = Names(plan.skin.pools["names"], rng, simple=kind == "public")
        if kind == "public":
            return self._public(feature, rng, names)
        weights = BOUNDARY if kind == "boundary" else TYPICAL
        scenario = _pick(rng, {**weights, "clean": 1} if feature == "feature3_check" and kind == "typical" else weights)
        if scenario in SHAPES:  # an edge shape, often with a problem as well
            problem = rng.choice(("clean", "missing", "cycle", "self", "elsewhere", "spelling"))
            graph, root = problem_map(rng, names, problem, _shape(rng, names, scenario))
        else:
            graph, root = problem_map(rng, names, scenario)
        data = {"op": OPS[feature], "packages": shuffled(rng, graph), "root": root}
        _extras(feature, data, rng)
        if kind == "malformed":
            return _break(data, rng, names)
        return _junk_entries(data, rng) if scenario == "junk" else data

    @staticmethod
    def _public(feature: str, rng: random.Random, names: Names) -> dict[str, Any]:
        """A short chain of simple names (every decision left open); the audit may show one simple problem."""
        listed = names.many(rng.randint(2, 4))
        data: dict[str, Any] = {"op": OPS[feature], "packages": chain(listed), "root": listed[0]}
        if feature == "feature5_why":
            data["target"] = listed[0] if rng.random() < 0.5 else names.one()
        elif feature == "feature6_impact":
            data = {"op": "impact", "packages": chain(listed[:2]), "target": listed[1]}
        elif feature == "feature4_install":
            data["installed"] = [listed[-1]] if len(listed) > 2 else []
        elif feature == "feature3_check":
            del data["root"]
            if rng.random() < 0.5:
                data["packages"][listed[-1]] = [names.one()]
        return data


def _shape(rng: random.Random, names: Names, shape: str) -> tuple[Graph, str]:
    """A map of an edge shape: a wide root over numbered leaves, a long chain with repeats, a small diamond."""
    if shape == "wide":
        leaves = names.numbered(rng.randint(3, 4)) + names.many(rng.randint(2, 4))
        rng.shuffle(leaves)
        root = names.one()
        return {root: leaves, **{leaf: [] for leaf in leaves}}, root
    if shape == "long":
        listed, side = names.many(rng.randint(12, 30)), names.many(2)
        graph = {**chain(listed), **chain(side)}
        graph[listed[0]] = [listed[1], side[0], listed[1], listed[-1]]
        rng.shuffle(graph[listed[0]])
        return graph, listed[0]
    top, left, right, bottom = names.many(4)
    graph = {top: [right, left, bottom], left: [bottom], right: [bottom], bottom: []}
    return {**graph, **dag(rng, names.many(2))}, top


def _extras(feature: str, data: dict[str, Any], rng: random.Random) -> None:
    """The fields the op needs beyond the map and root: installed names, a target; no root for check and impact."""
    graph: Graph = data["packages"]
    keys = list(graph)
    if feature == "feature4_install":
        pool = [k for k in keys if graph[k]] + [d for k in keys for d in graph[k]]
        chosen = set(rng.sample(pool, min(len(pool), rng.randint(1, 3))))
        data["installed"] = [name for name in dict.fromkeys(pool) if name in chosen]
    if feature in ("feature5_why", "feature6_impact"):
        needed = [d for k in keys for d in graph[k]] or keys
        popular = max(needed, key=needed.count)  # the most needed name: many dependents, in some order
        data["target"] = popular if feature == "feature6_impact" and rng.random() < 0.5 else rng.choice(needed)
    if feature in ("feature3_check", "feature6_impact"):
        del data["root"]


def _break(data: dict[str, Any], rng: random.Random, names: Names) -> Any:
    """The request made malformed in one way (the input itself, the op, or one field), or merely messy.

    Every malformed request still carries the map's drawn names, so that no two tasks share a hidden case.
    """
    choice = rng.randrange(13)
    if choice >= 10:
        return _mess(data, rng, names)
    if choice >= 8:
        return _junk_entries(data, rng)
    if choice == 0:  # not an object: its fields as a list, or the whole request quoted as a string
        return [data["op"], *data["packages"]] if rng.random() < 0.5 else json.dumps(data)
    if choice == 1:
        del data["op"]
    elif choice == 2:
        data["op"] = rng.choice(("sort", "Order", "resolve", "plan"))
    elif choice == 3:  # the names without their dependencies (never a bare null: the case would carry no content)
        listed = list(data["packages"])
        data["packages"] = listed if rng.random() < 0.5 else ", ".join(listed)
    elif choice == 4:
        key = rng.choice(list(data["packages"]))
        data["packages"][key] = rng.choice(("", key, {"needs": key}))
    elif choice == 5 and "root" in data:
        data["root"] = rng.choice((names.one(), "", [data["root"]]))
    elif choice == 6 and data["op"] in ("why", "impact"):
        data["target"] = rng.choice(("", None, 7))
    elif choice == 6 and data["op"] == "install":
        data["installed"] = rng.choice((names.one(), [names.one(), ""]))
    else:
        data["packages"] = {**data["packages"], "": [names.one()]}
    return data


def _mess(data: dict[str, Any], rng: random.Random, names: Names) -> dict[str, Any]:
    """A valid but messy request: fields nobody asked for, nulls where a field is optional, repeated entries."""
    data[rng.choice(("comment", "requested_by", "version"))] = rng.choice((names.one(), rng.randint(1, 99), None))
    if data["op"] == "install" and rng.random() < 0.5:
        data["installed"] = None
    for deps in data["packages"].values():
        if deps and rng.random() < 0.3:
            deps.append(rng.choice(deps))
    if data["op"] in ("check", "impact") and rng.random() < 0.5:
        data["root"] = names.one()
    return data


def _junk_entries(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Entries that are not names (numbers, nulls, empty strings) inside one or two lists of names."""
    lists = [deps for deps in data["packages"].values() if deps] or list(data["packages"].values())
    if data["op"] == "install" and data.get("installed"):
        lists.append(data["installed"])
    for deps in rng.sample(lists, min(len(lists), rng.randint(1, 2))):
        deps.insert(rng.randint(0, len(deps)), rng.choice((3, "", None, True, 0.5)))
    return data
