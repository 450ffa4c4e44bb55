def start_level(capacity):
    return capacity
