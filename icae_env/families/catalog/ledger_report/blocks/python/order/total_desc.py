def order(groups):
    return sorted(groups, key=lambda g: (-g.total, g.name))
