def order(names, minutes):
    return sorted(names)
