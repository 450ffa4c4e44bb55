def ordered(names):
    return list(names)
