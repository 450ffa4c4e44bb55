def arrange(names):
    return sorted(names)
