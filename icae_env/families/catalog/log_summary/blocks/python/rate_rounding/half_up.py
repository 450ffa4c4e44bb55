def round_tenth(numerator, denominator):
    whole, rest = divmod(numerator, denominator)
    return whole + (2 * rest >= denominator)
