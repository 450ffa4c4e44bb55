def names_in(values):
    return list(values) if all(is_name(v) for v in values) else None
