def round_in(minutes):
    return minutes


def round_out(minutes):
    return minutes
