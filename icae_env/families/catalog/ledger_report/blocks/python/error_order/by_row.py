def error_order(problems):
    return sorted(problems, key=lambda p: (p.row, p.rank))
