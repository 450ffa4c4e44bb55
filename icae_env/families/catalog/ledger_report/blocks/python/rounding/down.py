def round_cents(value):
    return int(value)
