const tildeUpper = (major, minor, patch, given) =>
  (given === 3 ? [major, minor + 1n, 0n] : [major + 1n, 0n, 0n]);
