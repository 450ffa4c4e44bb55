DUPLICATES = "last"
