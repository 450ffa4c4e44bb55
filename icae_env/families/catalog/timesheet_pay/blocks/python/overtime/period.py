def overtime(days):
    return max(0, sum(days) - 2400)
