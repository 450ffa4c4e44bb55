def hours_text(minutes):
    return f"{minutes // 60}h{minutes % 60:02d}"
