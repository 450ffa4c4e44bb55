def first_kind(result):
    return "missing" if result.missing else "cycle"
