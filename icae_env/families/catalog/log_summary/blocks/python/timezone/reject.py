def shift(seconds, offset):
    return seconds if offset is None else None
