def caret_upper(major, minor, patch, given):
    return (major + 1, 0, 0) if major > 0 or given == 1 else (0, minor + 1, 0)
