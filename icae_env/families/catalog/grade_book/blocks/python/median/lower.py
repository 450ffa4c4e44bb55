def median(values):
    return values[(len(values) - 1) // 2]
