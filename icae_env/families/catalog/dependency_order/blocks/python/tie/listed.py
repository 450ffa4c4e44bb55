def arrange(names):
    return list(names)
