def counted_keys(stats):
    return sum(1 for s in stats if s[1])
