def round_cents(x):
    return round(x)
