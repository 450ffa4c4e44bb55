const prereleaseAllowed = (version, written) =>
  written.some((w) => w.triple.every((n, i) => n === version.triple[i]));
