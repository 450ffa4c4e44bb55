def first_kind(result):
    return "cycle" if result.cycles else "missing"
