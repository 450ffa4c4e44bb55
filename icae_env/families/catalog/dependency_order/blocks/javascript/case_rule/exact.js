const canonical = (name) => name;
