def order(groups):
    return list(groups)
