def is_error(level):
    return level == "ERROR"
