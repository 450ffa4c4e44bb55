LEVEL_NAMES = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")


def level_of(text):
    upper = text.upper()
    return upper if upper in LEVEL_NAMES else None
