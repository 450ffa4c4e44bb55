def dependents(graph, target):
    return {name for name, deps in graph.items() if target in deps}
