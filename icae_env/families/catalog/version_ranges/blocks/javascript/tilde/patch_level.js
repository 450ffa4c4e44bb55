const tildeUpper = (major, minor, patch, given) =>
  (given === 1 ? [major + 1n, 0n, 0n] : [major, minor + 1n, 0n]);
