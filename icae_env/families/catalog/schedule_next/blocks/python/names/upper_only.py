def name_value(text, names, full):
    return names.index(text) if text in names else None
