def rank_numbers(grades):
    numbers = []
    for k, grade in enumerate(grades):
        same = k and grade == grades[k - 1]
        numbers.append(numbers[-1] if same else (numbers[-1] + 1 if numbers else 1))
    return numbers
