def evaluation_time(t, latest, last):
    return t if last is None else max(t, last)


def is_late(t, latest):
    return False
