DUPLICATES = "first"
