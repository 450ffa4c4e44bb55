BOOL_WORDS = frozenset({"true", "false"})
