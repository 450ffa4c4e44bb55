def place(order, graph):
    stage = {order[-1]: depths(order, graph)[order[-1]]}
    for name in reversed(order[:-1]):
        stage[name] = min(stage[user] for user in stage if name in graph[user]) - 1
    return stage
