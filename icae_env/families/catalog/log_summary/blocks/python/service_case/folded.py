def service_name(text):
    return text.lower()
