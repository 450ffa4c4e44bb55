def retry_text(ms):
    return f"{-(-ms // 1000)}s"
