def overtime(days):
    daily = sum(max(0, d - 480) for d in days)
    return daily + max(0, sum(days) - daily - 2400)
