def round_cents(x):
    return (2 * x.numerator + x.denominator) // (2 * x.denominator)
