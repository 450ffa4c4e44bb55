def window_origin(first):
    return 0
