const leaves = (installed) => new Set(installed);
