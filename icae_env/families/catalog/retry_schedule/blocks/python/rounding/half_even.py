def round_ms(value):
    return round(value)
