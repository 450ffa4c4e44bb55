function caretUpper(major, minor, patch, given) {
  if (major > 0n || given === 1) return [major + 1n, 0n, 0n];
  if (minor > 0n || given === 2) return [0n, minor + 1n, 0n];
  return [0n, 0n, patch + 1n];
}
