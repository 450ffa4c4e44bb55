DUPLICATES = "text"
