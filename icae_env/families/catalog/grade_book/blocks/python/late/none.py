def late_penalty(days):
    return 0
