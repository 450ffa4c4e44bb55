def late_penalty(days):
    return 10 * days
