def place(order, graph):
    return depths(order, graph)
