def arrange(names):
    return sorted(names, key=natural_key)
