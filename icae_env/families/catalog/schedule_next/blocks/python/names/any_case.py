def name_value(text, names, full):
    return names.index(text.upper()) if text.upper() in names else None
