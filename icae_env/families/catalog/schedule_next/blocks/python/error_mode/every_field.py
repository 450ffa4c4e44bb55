def report(fields):
    return [problems[0] for problems in fields]
