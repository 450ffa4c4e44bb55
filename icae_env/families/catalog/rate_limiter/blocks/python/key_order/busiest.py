def order_keys(stats):
    return sorted(stats, key=lambda s: (-(s[1] + s[2]), s[0]))
