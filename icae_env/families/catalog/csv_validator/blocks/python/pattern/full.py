def matches(pattern, value):
    return pattern.fullmatch(value) is not None
