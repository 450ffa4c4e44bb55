def counted_keys(stats):
    return len(stats)
