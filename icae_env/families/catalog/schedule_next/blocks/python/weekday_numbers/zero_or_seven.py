DOW_LOW, DOW_HIGH, DOW_STAR_HIGH = 0, 7, 6


def weekday_index(number):
    return number % 7
