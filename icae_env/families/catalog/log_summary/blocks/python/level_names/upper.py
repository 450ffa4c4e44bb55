LEVEL_NAMES = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")


def level_of(text):
    return text if text in LEVEL_NAMES else None
