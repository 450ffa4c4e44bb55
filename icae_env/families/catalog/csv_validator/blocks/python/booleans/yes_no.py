BOOL_WORDS = frozenset({"true", "false", "yes", "no", "1", "0"})
