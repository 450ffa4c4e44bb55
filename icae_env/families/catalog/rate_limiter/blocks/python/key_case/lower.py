def key_of(key):
    return key.lower()
