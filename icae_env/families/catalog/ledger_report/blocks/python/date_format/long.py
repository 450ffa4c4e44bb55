def fmt_day(day):
    return f"{day:%b} {day.day}, {day.year}"
