def int_allowed(value):
    return True
