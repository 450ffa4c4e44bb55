NO_MATCH = "null"
