def round_cents(value):
    return int(value + Fraction(1, 2))
