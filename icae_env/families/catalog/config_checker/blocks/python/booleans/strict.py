TRUE_WORDS = frozenset({"true"})
FALSE_WORDS = frozenset({"false"})
