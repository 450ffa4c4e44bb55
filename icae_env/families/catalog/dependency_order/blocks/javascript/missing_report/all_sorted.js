const reportMissing = (names) => [...names].sort(byCode);
