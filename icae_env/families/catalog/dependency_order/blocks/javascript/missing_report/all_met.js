const reportMissing = (names) => [...names];
