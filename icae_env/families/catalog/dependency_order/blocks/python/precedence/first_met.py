def first_kind(result):
    return result.events[0]
