const caretUpper = (major, minor, patch, given) => [major + 1n, 0n, 0n];
