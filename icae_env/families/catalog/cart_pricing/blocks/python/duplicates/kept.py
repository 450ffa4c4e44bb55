REJECT_DUPLICATES = False


def combine(lines):
    return list(lines)
