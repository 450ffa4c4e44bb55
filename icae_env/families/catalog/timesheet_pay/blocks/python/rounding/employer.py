def round_in(minutes):
    return -(-minutes // 15) * 15


def round_out(minutes):
    return minutes // 15 * 15
