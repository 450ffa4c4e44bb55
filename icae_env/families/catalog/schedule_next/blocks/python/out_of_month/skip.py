def month_days(days, last, before):
    return {d for d in days if d <= last}
