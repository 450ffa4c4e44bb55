def unrecorded_break(span):
    return 30 if span > 360 else 0
