def duration(ms):
    return f"{ms}ms" if ms < 1000 else f"{ms // 1000}.{ms % 1000:03d}s"
