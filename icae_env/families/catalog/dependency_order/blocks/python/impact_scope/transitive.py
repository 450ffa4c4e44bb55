def dependents(graph, target):
    hit, grew = {target}, True
    while grew:
        grew = False
        for name, deps in graph.items():
            if name not in hit and any(dep in hit for dep in deps):
                hit.add(name)
                grew = True
    return hit
