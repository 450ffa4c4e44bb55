def round_cents(x):
    return x.numerator // x.denominator
