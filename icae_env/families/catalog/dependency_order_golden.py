"""The Python golden of ``dependency-order``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "deporder/__init__.py": '''"""Install orders, stages, audits, what is left, explanations and impact."""

from .app import handle

__all__ = ["handle"]
''',
    "deporder/common.py": '''"""Helpers the house rules build on: natural name order and dependency depth."""

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
''',
    "deporder/graph.py": '''"""The request's map as a graph of names, each with its dependencies in visiting order."""

from .rules import KEEP_SELF, arrange, canonical, names_in


def build_graph(raw):
    """Name -> dependencies (duplicates dropped, in visiting order); spellings merged by the house name rule."""
    graph = {}
    for key, deps in raw.items():
        name = canonical(key)
        own = graph.setdefault(name, [])
        for dep in names_in(deps):
            dep = canonical(dep)
            if dep not in own and (KEEP_SELF or dep != name):
                own.append(dep)
    return {name: arrange(deps) for name, deps in graph.items()}
''',
    "deporder/walk.py": '''"""The depth-first walk all reports use: the post-order, and problems in the order met."""

from dataclasses import dataclass, field

from .rules import start_at

ON_PATH, DONE = 1, 2


@dataclass
class Walk:
    order: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    cycles: list = field(default_factory=list)
    events: list = field(default_factory=list)


def walk(graph, starts, leaves=frozenset()):
    """Walk from each start in turn (iteratively); ``leaves`` are present but never expanded."""
    result, state, seen = Walk(), {}, set()
    for start in starts:
        if start in state or start in leaves:
            continue
        path, nexts = [start], [0]
        state[start] = ON_PATH
        while path:
            top = path[-1]
            deps = graph[top]
            if nexts[-1] == len(deps):
                path.pop()
                nexts.pop()
                state[top] = DONE
                result.order.append(top)
                continue
            dep = deps[nexts[-1]]
            nexts[-1] += 1
            if state.get(dep) == ON_PATH:
                result.cycles.append(start_at(path[path.index(dep) :]))
                result.events.append("cycle")
            elif state.get(dep) == DONE or dep in leaves:
                continue
            elif dep not in graph:
                if dep not in seen:
                    seen.add(dep)
                    result.missing.append((dep, top))
                    result.events.append("missing")
            else:
                state[dep] = ON_PATH
                path.append(dep)
                nexts.append(0)
    return result


def closure(result, root):
    """The install order of ``root`` alone: the walk's prefix up to the root (empty when it was not walked)."""
    return result.order[: result.order.index(root) + 1] if root in result.order else []
''',
    "deporder/problems.py": '''"""What is wrong with a walk, as the lines the reports print."""

from .rules import ITEM, first_kind, report_missing


def cycle_text(loop):
    return " -> ".join([*loop, loop[0]])


def _missing(result):
    return report_missing([name for name, _ in result.missing])


def error_line(result):
    """The one error line of an install-order report, or None when nothing is wrong."""
    if not result.cycles and not result.missing:
        return None
    if first_kind(result) == "cycle":
        return f"error: cycle: {cycle_text(result.cycles[0])}"
    return f"error: missing {ITEM}s: " + ", ".join(_missing(result))


def audit_lines(result):
    """Every problem of a whole-map walk, one line each (no lines when nothing is wrong)."""
    if not result.cycles and not result.missing:
        return []
    needed_by = dict(result.missing)
    missing = [f"missing: {name} (needed by {needed_by[name]})" for name in _missing(result)]
    cycles = [f"cycle: {cycle_text(loop)}" for loop in result.cycles]
    return cycles + missing if first_kind(result) == "cycle" else missing + cycles
''',
    "deporder/reports.py": '''"""The six reports."""

from .problems import audit_lines, error_line
from .rules import (
    ITEM,
    REBUILD_ORDER,
    arrange,
    canonical,
    chain_text,
    dependents,
    find_chain,
    leaves,
    names_in,
    place,
    starts,
)
from .walk import closure, walk


def order(data, graph, root):
    result = walk(graph, starts(graph, root))
    error = error_line(result)
    return [error] if error else closure(result, root)


def stages(data, graph, root):
    result = walk(graph, starts(graph, root))
    error = error_line(result)
    if error:
        return [error]
    names = closure(result, root)
    stage = place(names, graph)
    return [
        f"stage {number}: " + ", ".join(name for name in names if stage[name] == number)
        for number in range(1, stage[root] + 1)
    ]


def check(data, graph, root):
    result = walk(graph, arrange(list(graph)))
    return audit_lines(result) or [f"ok: {len(graph)} {ITEM}s"]


def install(data, graph, root):
    installed = {canonical(name) for name in names_in(data.get("installed") or [])}
    result = walk(graph, starts(graph, root), leaves(installed, graph))
    error = error_line(result)
    if error:
        return [error]
    return [name for name in closure(result, root) if name not in installed] or ["nothing to install"]


def why(data, graph, root):
    target = canonical(data["target"])
    chain = find_chain(graph, root, target)
    return [chain_text(chain)] if chain else [f"{target} is not needed by {root}"]


def impact(data, graph, root):
    target = canonical(data["target"])
    hit = dependents(graph, target)
    listed = walk(graph, arrange(list(graph))).order if REBUILD_ORDER else arrange(list(graph))
    names = [name for name in listed if name in hit and name != target]
    return names or [f"nothing depends on {target}"]


REPORTS = {"order": order, "stages": stages, "check": check, "install": install, "why": why, "impact": impact}
NEEDS_ROOT = ("order", "stages", "install", "why")
NEEDS_TARGET = ("why", "impact")
''',
    "deporder/app.py": '''"""One request in, one report out; the request is checked field by field first."""

from .graph import build_graph
from .reports import NEEDS_ROOT, NEEDS_TARGET, REPORTS
from .rules import canonical, is_name, names_in


def _names(value):
    return isinstance(value, list) and names_in(value) is not None


def bad_field(data):
    """The first field that is not as documented, or None."""
    packages, op = data.get("packages"), data["op"]
    if not isinstance(packages, dict) or not all(is_name(key) and _names(deps) for key, deps in packages.items()):
        return "packages"
    if op in NEEDS_ROOT and not is_name(data.get("root")):
        return "root"
    if op in NEEDS_TARGET and not is_name(data.get("target")):
        return "target"
    if op == "install" and data.get("installed") is not None and not _names(data["installed"]):
        return "installed"
    return None


def _lines(data):
    op = data.get("op")
    if not isinstance(op, str) or op not in REPORTS:
        return [f"error: unknown op: {op}" if isinstance(op, str) else "error: unknown op"]
    field = bad_field(data)
    if field:
        return [f"error: bad field: {field}"]
    graph = build_graph(data["packages"])
    root = canonical(data["root"]) if op in NEEDS_ROOT else None
    if root is not None and root not in graph:
        return [f"error: unknown root: {data['root']}"]
    return REPORTS[op](data, graph, root)


def handle(data):
    """The whole output of one request (a JSON object with op, packages and what the op needs)."""
    if not isinstance(data, dict):
        return "error: unreadable input\\n"
    return "\\n".join(_lines(data)) + "\\n"
''',
}

BLOCKS = {
    "tie": {
        "listed": "def arrange(names):\n    return list(names)\n",
        "name_asc": "def arrange(names):\n    return sorted(names)\n",
        "natural": "def arrange(names):\n    return sorted(names, key=natural_key)\n",
    },
    "missing_report": {
        "first": "def report_missing(names):\n    return names[:1]\n",
        "all_met": "def report_missing(names):\n    return list(names)\n",
        "all_sorted": "def report_missing(names):\n    return sorted(names)\n",
    },
    "precedence": {
        "cycle": 'def first_kind(result):\n    return "cycle" if result.cycles else "missing"\n',
        "missing": 'def first_kind(result):\n    return "missing" if result.missing else "cycle"\n',
        "first_met": "def first_kind(result):\n    return result.events[0]\n",
    },
    "cycle_start": {
        "entry": "def start_at(loop):\n    return loop\n",
        "smallest": "def start_at(loop):\n    at = loop.index(min(loop))\n    return loop[at:] + loop[:at]\n",
    },
    "self_dep": {"cycle": "KEEP_SELF = True\n", "ignore": "KEEP_SELF = False\n"},
    "bad_entries": {
        "reject": "def names_in(values):\n    return list(values) if all(is_name(v) for v in values) else None\n",
        "skip": "def names_in(values):\n    return [v for v in values if is_name(v)]\n",
    },
    "case_rule": {
        "exact": "def canonical(name):\n    return name\n",
        "lower": "def canonical(name):\n    return name.lower()\n",
        "normalized": 'def canonical(name):\n    return re.sub(r"[-_.]+", "-", name.lower())\n',
    },
    "scope": {
        "reachable": "def starts(graph, root):\n    return [root]\n",
        "whole": "def starts(graph, root):\n    return [root, *arrange(list(graph))]\n",
    },
    "stage_rule": {
        "earliest": "def place(order, graph):\n    return depths(order, graph)\n",
        "latest": """def place(order, graph):
    stage = {order[-1]: depths(order, graph)[order[-1]]}
    for name in reversed(order[:-1]):
        stage[name] = min(stage[user] for user in stage if name in graph[user]) - 1
    return stage
""",
    },
    "installed_deps": {
        "checked": "def leaves(installed, graph):\n    return {name for name in installed if name not in graph}\n",
        "trusted": "def leaves(installed, graph):\n    return set(installed)\n",
    },
    "why_path": {
        "first_found": """def find_chain(graph, root, target):
    path, nexts, seen = [root], [0], {root}
    while path:
        if path[-1] == target:
            return path
        deps = graph.get(path[-1], [])
        if nexts[-1] == len(deps):
            path.pop()
            nexts.pop()
            continue
        dep = deps[nexts[-1]]
        nexts[-1] += 1
        if dep not in seen:
            seen.add(dep)
            path.append(dep)
            nexts.append(0)
    return None
""",
        "shortest": """def find_chain(graph, root, target):
    parent, queue = {root: None}, [root]
    for name in queue:
        if name == target:
            chain = []
            while name is not None:
                chain.append(name)
                name = parent[name]
            return chain[::-1]
        for dep in graph.get(name, []):
            if dep not in parent:
                parent[dep] = name
                queue.append(dep)
    return None
""",
    },
    "why_direction": {
        "down": 'def chain_text(chain):\n    return " -> ".join(chain)\n',
        "up": 'def chain_text(chain):\n    return " <- ".join(reversed(chain))\n',
    },
    "impact_order": {"map": "REBUILD_ORDER = False\n", "rebuild": "REBUILD_ORDER = True\n"},
    "impact_scope": {
        "transitive": """def dependents(graph, target):
    hit, grew = {target}, True
    while grew:
        grew = False
        for name, deps in graph.items():
            if name not in hit and any(dep in hit for dep in deps):
                hit.add(name)
                grew = True
    return hit
""",
        "direct": """def dependents(graph, target):
    return {name for name, deps in graph.items() if target in deps}
""",
    },
}

#: What a decision is when the task does not have it (its feature is absent): any value works; the first.
FALLBACK_BLOCKS = {name: next(iter(values.values())) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str], item: str) -> str:
    """``deporder/rules.py``: the chosen block of every decision (absent decisions take a fixed one)."""
    parts = [
        '"""The house rules of this resolver (one block per product decision)."""\n',
        "import re\n\nfrom .common import depths, is_name, natural_key\n",
        f"ITEM = {item!r}\n",
    ]
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS[name])
    return "\n\n".join(parts)


def golden_files(values: dict[str, str], item: str) -> dict[str, str]:
    """The golden package for the decisions' ``values`` (``item``: the skin's word for a package)."""
    return {**CORE, "deporder/rules.py": rules_module(values, item)}
