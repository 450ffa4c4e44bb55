def round_cents(value):
    return round(value)
