def round_ms(value):
    return -(-value.numerator // value.denominator)
