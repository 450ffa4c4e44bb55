def start_at(loop):
    return loop
