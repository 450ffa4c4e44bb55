def window_starts(starts, length):
    return list(range(starts[0], starts[-1] + length, length)) if starts else []
