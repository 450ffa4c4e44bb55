def report_missing(names):
    return sorted(names)
