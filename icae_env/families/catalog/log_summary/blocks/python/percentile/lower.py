def percentile(values, p):
    return values[p * (len(values) - 1) // 100]
