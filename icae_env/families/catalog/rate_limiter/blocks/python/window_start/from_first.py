def window_origin(first):
    return first
