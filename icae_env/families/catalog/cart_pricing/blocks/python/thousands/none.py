def group_thousands(whole):
    return str(whole)
