def summary(rows, errors):
    def count(number, word):
        return f"{number} {word}" + ("" if number == 1 else "s")

    return f"summary: {count(rows, 'row')}, {count(errors, 'error')}"
