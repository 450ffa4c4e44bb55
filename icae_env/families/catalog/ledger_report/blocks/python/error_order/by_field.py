def error_order(problems):
    return sorted(problems, key=lambda p: (p.rank, p.row))
