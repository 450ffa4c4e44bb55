def ordered(names):
    return sorted(names)
