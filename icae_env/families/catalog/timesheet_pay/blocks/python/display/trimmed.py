def hours_text(minutes):
    hundredths = (minutes * 100 + 30) // 60
    return f"{hundredths // 100}.{hundredths % 100:02d}".rstrip("0").rstrip(".")
