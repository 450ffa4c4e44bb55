def leaves(installed, graph):
    return set(installed)
