def group_thousands(whole):
    return f"{whole:,}"
