def in_enum(value, values):
    return value in values
