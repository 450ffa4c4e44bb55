"""The depth-first walk all reports use: the post-order, and problems in the order met."""

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
