const arrange = (names) => [...names];
