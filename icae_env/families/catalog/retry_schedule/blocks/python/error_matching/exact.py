def error_matches(name, errors):
    return name in errors
