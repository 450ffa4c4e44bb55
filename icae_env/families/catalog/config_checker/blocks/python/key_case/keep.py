def key_name(raw):
    return raw
