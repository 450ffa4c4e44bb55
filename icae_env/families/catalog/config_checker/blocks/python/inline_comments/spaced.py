def strip_comment(text):
    """Cut ``text`` at the first # or ; that follows a space or a tab."""
    for i in range(1, len(text)):
        if text[i] in "#;" and text[i - 1] in " \t":
            return text[:i]
    return text
