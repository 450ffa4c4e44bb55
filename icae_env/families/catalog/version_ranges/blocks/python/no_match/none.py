NO_MATCH = "none"
