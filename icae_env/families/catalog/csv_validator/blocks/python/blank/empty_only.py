def is_blank(value):
    return value == ""
