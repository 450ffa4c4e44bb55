def caret_upper(major, minor, patch, given):
    return (major + 1, 0, 0)
