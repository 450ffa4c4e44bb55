def find_chain(graph, root, target):
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
