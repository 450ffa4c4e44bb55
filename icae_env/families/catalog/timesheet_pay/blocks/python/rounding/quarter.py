def _quarter(minutes):
    return (minutes + 7) // 15 * 15


def round_in(minutes):
    return _quarter(minutes)


def round_out(minutes):
    return _quarter(minutes)
