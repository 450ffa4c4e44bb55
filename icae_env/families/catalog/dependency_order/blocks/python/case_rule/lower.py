def canonical(name):
    return name.lower()
