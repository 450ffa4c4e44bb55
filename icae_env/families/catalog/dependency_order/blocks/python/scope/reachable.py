def starts(graph, root):
    return [root]
