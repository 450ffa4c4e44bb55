def late_penalty(days):
    return min(10 * days, 30)
