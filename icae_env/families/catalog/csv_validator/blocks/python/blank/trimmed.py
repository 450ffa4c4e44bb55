def is_blank(value):
    return value.strip(" \t") == ""
