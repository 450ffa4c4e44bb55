def tilde_upper(major, minor, patch, given):
    return (major + 1, 0, 0) if given == 1 else (major, minor + 1, 0)
