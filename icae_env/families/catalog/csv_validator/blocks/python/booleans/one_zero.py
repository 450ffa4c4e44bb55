BOOL_WORDS = frozenset({"true", "false", "1", "0"})
