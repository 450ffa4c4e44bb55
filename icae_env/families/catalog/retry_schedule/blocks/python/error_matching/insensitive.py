def error_matches(name, errors):
    return name.lower() in [e.lower() for e in errors]
