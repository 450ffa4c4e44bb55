def find_chain(graph, root, target):
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
