def tie_key(entry):
    return (entry.category, entry.row)
