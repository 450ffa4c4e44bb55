def start_level(capacity):
    return 0
