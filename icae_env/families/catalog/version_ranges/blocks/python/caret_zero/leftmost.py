def caret_upper(major, minor, patch, given):
    if major > 0 or given == 1:
        return (major + 1, 0, 0)
    if minor > 0 or given == 2:
        return (0, minor + 1, 0)
    return (0, 0, patch + 1)
