"""The request's map as a graph of names, each with its dependencies in visiting order."""

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
