const canonical = (name) => name.toLowerCase();
