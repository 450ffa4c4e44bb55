def evaluation_time(t, latest, last):
    return t


def is_late(t, latest):
    return latest is not None and t < latest
