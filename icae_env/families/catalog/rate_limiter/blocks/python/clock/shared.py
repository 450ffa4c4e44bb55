def evaluation_time(t, latest, last):
    return t if latest is None else max(t, latest)


def is_late(t, latest):
    return False
