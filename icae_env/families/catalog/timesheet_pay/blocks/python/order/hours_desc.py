def order(names, minutes):
    return sorted(names, key=lambda n: (-minutes[n], n))
