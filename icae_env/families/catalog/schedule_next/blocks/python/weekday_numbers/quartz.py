DOW_LOW, DOW_HIGH, DOW_STAR_HIGH = 1, 7, 7


def weekday_index(number):
    return number - 1
