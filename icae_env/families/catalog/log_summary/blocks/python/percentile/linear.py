def percentile(values, p):
    low, rest = divmod(p * (len(values) - 1), 100)
    high = values[min(low + 1, len(values) - 1)]
    return (100 * values[low] + (high - values[low]) * rest + 50) // 100
