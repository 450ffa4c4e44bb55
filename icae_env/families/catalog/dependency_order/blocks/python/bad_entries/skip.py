def names_in(values):
    return [v for v in values if is_name(v)]
