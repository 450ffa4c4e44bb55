def name_value(text, names, full):
    for choices in (names, full):
        if text.upper() in choices:
            return choices.index(text.upper())
    return None
