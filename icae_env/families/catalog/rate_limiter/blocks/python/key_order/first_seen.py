def order_keys(stats):
    return list(stats)
