def fmt_day(day):
    return day.strftime("%d/%m/%Y")
