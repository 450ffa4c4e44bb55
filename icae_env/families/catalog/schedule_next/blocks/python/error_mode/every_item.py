def report(fields):
    return [problem for problems in fields for problem in problems]
