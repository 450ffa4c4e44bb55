const caretUpper = (major, minor, patch, given) =>
  (major > 0n || given === 1 ? [major + 1n, 0n, 0n] : [0n, minor + 1n, 0n]);
