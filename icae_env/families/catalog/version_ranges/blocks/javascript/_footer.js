module.exports = { DESCENDING, shown, INVALID, PREFIX, prereleaseAllowed, DUPLICATES, caretUpper, tildeUpper, HYPHEN_PREFIX, LENIENT_OPERATORS, PICK_LOWEST, NO_MATCH };
