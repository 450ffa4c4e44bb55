def round_grade(x):
    return Fraction(x.numerator // x.denominator)
