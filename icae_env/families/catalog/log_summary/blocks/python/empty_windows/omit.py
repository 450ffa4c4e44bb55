def window_starts(starts, length):
    return starts
