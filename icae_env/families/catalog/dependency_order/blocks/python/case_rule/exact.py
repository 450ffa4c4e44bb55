def canonical(name):
    return name
