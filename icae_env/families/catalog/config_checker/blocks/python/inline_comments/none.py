def strip_comment(text):
    return text
