DUPLICATES = "precedence"
