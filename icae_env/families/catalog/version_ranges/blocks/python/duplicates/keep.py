DUPLICATES = "keep"
