def tie_key(entry):
    return -entry.row
