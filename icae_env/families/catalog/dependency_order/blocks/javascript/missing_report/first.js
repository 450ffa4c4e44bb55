const reportMissing = (names) => names.slice(0, 1);
