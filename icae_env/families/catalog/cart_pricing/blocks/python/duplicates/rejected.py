REJECT_DUPLICATES = True


def combine(lines):
    return list(lines)
