def is_error(level):
    return level == "WARN" or level == "ERROR" or level == "FATAL"
