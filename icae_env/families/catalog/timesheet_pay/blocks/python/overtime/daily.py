def overtime(days):
    return sum(max(0, d - 480) for d in days)
