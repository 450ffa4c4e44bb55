DUPLICATES = "error"
