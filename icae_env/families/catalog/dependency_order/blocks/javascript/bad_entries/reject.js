const namesIn = (values) => (values.every(isName) ? [...values] : null);
