def starts(graph, root):
    return [root, *arrange(list(graph))]
