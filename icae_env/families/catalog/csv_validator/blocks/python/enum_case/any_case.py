def in_enum(value, values):
    return value.casefold() in {v.casefold() for v in values}
