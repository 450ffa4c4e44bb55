def fmt_day(day):
    return day.isoformat()
