def order_keys(stats):
    return sorted(stats)
