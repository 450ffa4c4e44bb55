def order(names, minutes):
    return list(names)
