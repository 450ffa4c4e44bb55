NO_MATCH = "not found"
