def in_range(day, start, end):
    return start <= day <= end
