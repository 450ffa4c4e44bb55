def shown(text):
    return text.lstrip("vV").split("+")[0]
