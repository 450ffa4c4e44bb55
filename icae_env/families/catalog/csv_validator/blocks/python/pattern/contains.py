def matches(pattern, value):
    return pattern.search(value) is not None
