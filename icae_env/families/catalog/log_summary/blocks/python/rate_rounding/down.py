def round_tenth(numerator, denominator):
    return numerator // denominator
