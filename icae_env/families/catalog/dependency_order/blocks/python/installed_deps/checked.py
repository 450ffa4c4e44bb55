def leaves(installed, graph):
    return {name for name in installed if name not in graph}
