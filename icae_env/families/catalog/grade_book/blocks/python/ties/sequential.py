def rank_numbers(grades):
    return list(range(1, len(grades) + 1))
