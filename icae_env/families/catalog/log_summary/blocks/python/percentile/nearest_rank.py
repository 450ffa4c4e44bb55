def percentile(values, p):
    return values[max(1, -(-p * len(values) // 100)) - 1]
