def month_days(days, last, before):
    rolled = {1} if any(d > before for d in days) else set()
    return {d for d in days if d <= last} | rolled
