"""The six reports."""

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
