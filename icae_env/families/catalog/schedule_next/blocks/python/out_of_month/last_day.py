def month_days(days, last, before):
    return {min(d, last) for d in days}
