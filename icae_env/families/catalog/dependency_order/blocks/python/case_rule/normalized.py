def canonical(name):
    return re.sub(r"[-_.]+", "-", name.lower())
