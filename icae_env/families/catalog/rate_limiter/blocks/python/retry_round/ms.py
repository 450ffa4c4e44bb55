def retry_text(ms):
    return f"{ms}ms"
