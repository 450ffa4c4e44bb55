def round_ms(value):
    return (2 * value.numerator + value.denominator) // (2 * value.denominator)
