def duration(ms):
    return f"{ms}ms"
