const arrange = (names) => [...names].sort(byCode);
