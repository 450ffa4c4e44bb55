def span(start, end, low, high):
    return list(range(start, end + 1)) if start <= end else None
