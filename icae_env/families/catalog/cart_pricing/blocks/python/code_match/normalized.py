def code_key(text):
    return text.strip().upper()
