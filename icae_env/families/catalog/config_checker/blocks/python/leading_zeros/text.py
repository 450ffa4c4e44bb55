def int_allowed(value):
    digits = value.lstrip("+-")
    return digits == "0" or not digits.startswith("0")
