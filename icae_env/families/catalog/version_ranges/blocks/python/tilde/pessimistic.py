def tilde_upper(major, minor, patch, given):
    return (major, minor + 1, 0) if given == 3 else (major + 1, 0, 0)
