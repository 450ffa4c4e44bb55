INVALID = "skip"
