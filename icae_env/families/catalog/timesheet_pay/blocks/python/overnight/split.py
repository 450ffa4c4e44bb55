import datetime


def day_parts(day, start, end, pause):
    first = max(0, min(end, 1440) - start)
    cut = min(first, pause)
    parts = [(day, first - cut)]
    if end - start > first:
        parts.append((day + datetime.timedelta(days=1), end - start - first - (pause - cut)))
    return parts
