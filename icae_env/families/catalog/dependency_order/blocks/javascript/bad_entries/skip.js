const namesIn = (values) => values.filter(isName);
