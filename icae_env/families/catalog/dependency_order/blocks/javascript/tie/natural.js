const arrange = (names) => [...names].sort(naturalCompare);
